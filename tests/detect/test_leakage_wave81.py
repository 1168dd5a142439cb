"""The static leakage analysis on the kinds a held-out wave of text and image classifiers showed (issue 17, wave 81:
Keras training through generators), in both directions: early stopping on the test rows found when the model is
trained with the legacy ``fit_generator`` or when the test rows reach ``validation_data`` inside an
``ImageDataGenerator.flow``; the healthy look-alikes (a validation part, no callback that chooses) silent. Every
example is written for this test."""

from __future__ import annotations

import pytest

from tests.detect.test_leakage_kinds import alarms

#: a small image classifier, an augmenting generator and an early-stopping callback, after a split
KERAS = """\
        from keras.models import Sequential
        from keras.layers import Dense
        from keras.callbacks import EarlyStopping
        from keras.preprocessing.image import ImageDataGenerator
        images, labels = np.load("images.npy"), np.load("labels.npy")
        X_tr, X_te, y_tr, y_te = train_test_split(images, labels, test_size=0.2)
        net = Sequential([Dense(2, activation="softmax")])
        net.compile(loss="categorical_crossentropy", optimizer="adam", metrics=["accuracy"])
        shifts = ImageDataGenerator(width_shift_range=0.1)
        halt = EarlyStopping(monitor="val_accuracy", patience=4, restore_best_weights=True)
"""

LEAKS = {
    # the legacy generator API, the test arrays as its validation data, the callback keeps the best epoch
    "fit_generator_stops_on_the_test_arrays": (KERAS + """\
        net.fit_generator(shifts.flow(X_tr, y_tr), epochs=40, validation_data=(X_te, y_te), callbacks=[halt])
        print(net.evaluate(X_te, y_te))
""", [("tuned_on_test", 11)]),
    # the test arrays wrapped in the augmenting generator, passed inline to fit
    "test_rows_inside_a_flow_generator_passed_to_fit": (KERAS + """\
        net.fit(shifts.flow(X_tr, y_tr), epochs=40, validation_data=shifts.flow(X_te, y_te), callbacks=[halt])
""", [("tuned_on_test", 11)]),
    # both at once, the generator of test rows named for what it holds
    "fit_generator_with_a_test_flow_generator": (KERAS + """\
        test_batches = shifts.flow(X_te, y_te, batch_size=16)
        net.fit_generator(shifts.flow(X_tr, y_tr), epochs=40, validation_data=test_batches, callbacks=[halt])
""", [("tuned_on_test", 12)]),
}

HEALTHY = {
    # a validation part cut from the training part chooses the epoch: the intended practice
    "fit_generator_stops_on_a_validation_part": (KERAS + """\
        X_fit, X_val, y_fit, y_val = train_test_split(X_tr, y_tr, test_size=0.2)
        net.fit_generator(shifts.flow(X_fit, y_fit), epochs=40, validation_data=(X_val, y_val), callbacks=[halt])
        print(net.evaluate(X_te, y_te))
"""),
    # the validation part inside the augmenting generator
    "validation_part_inside_a_flow_generator": (KERAS + """\
        X_fit, X_val, y_fit, y_val = train_test_split(X_tr, y_tr, test_size=0.2)
        net.fit(shifts.flow(X_fit, y_fit), epochs=40, validation_data=shifts.flow(X_val, y_val), callbacks=[halt])
"""),
    # the test rows only print their score each epoch: no callback chooses by it
    "test_flow_generator_only_watched": (KERAS + """\
        net.fit_generator(shifts.flow(X_tr, y_tr), epochs=40, validation_data=shifts.flow(X_te, y_te))
"""),
}


@pytest.mark.parametrize("name", sorted(LEAKS))
def test_wave_81_leaks_found_at_their_line(tmp_path, name):
    body, expected = LEAKS[name]
    assert alarms(tmp_path, body) == expected


@pytest.mark.parametrize("name", sorted(HEALTHY))
def test_wave_81_look_alikes_silent(tmp_path, name):
    assert alarms(tmp_path, HEALTHY[name]) == []
