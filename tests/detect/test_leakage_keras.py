"""Keras models in the static leakage analysis (kerasmodels.py): ``Sequential`` / functional ``Model`` are models,
``evaluate(x, y)`` scores those rows (keras.io, "Model training APIs"), in both directions. Every example is
written for this test."""

from __future__ import annotations

from pathlib import Path

from tests.detect.leakage_source import alarms


def _alarms(tmp_path: Path, text: str, name: str = "net.py") -> set[tuple[str, int]]:
    return alarms(tmp_path, text, name)


_HEAD = """\
import numpy as np
from tensorflow.keras.models import Sequential
from tensorflow.keras.layers import Dense
from sklearn.model_selection import train_test_split

rng = np.random.default_rng(0)
signals = rng.normal(size=(400, 6))
labels = (signals[:, 0] > 0).astype(int)
"""

# widths tried, each network scored on the test part, the best width kept
WIDTHS_ON_TEST = _HEAD + """\
sig_tr, sig_te, lab_tr, lab_te = train_test_split(signals, labels, test_size=0.3)
top, width = 0.0, 0
for units in [8, 16, 32]:
    net = Sequential([Dense(units, activation="relu"), Dense(1, activation="sigmoid")])
    net.compile("adam", "binary_crossentropy", metrics=["accuracy"])
    net.fit(sig_tr, lab_tr, epochs=5, verbose=0)
    loss, acc = net.evaluate(sig_te, lab_te, verbose=0)
    if acc > top:
        top, width = acc, units
print(width, top)
"""

# the same loop on a validation part carved from the training rows, then one final evaluate on the test part
WIDTHS_ON_VALIDATION = _HEAD + """\
sig_tr, sig_te, lab_tr, lab_te = train_test_split(signals, labels, test_size=0.3)
sig_fit, sig_val, lab_fit, lab_val = train_test_split(sig_tr, lab_tr, test_size=0.2)
top, width = 0.0, 0
for units in [8, 16, 32]:
    net = Sequential([Dense(units, activation="relu"), Dense(1, activation="sigmoid")])
    net.compile("adam", "binary_crossentropy", metrics=["accuracy"])
    net.fit(sig_fit, lab_fit, epochs=5, verbose=0)
    loss, acc = net.evaluate(sig_val, lab_val, verbose=0)
    if acc > top:
        top, width = acc, units
final = Sequential([Dense(width, activation="relu"), Dense(1, activation="sigmoid")])
final.compile("adam", "binary_crossentropy", metrics=["accuracy"])
final.fit(sig_tr, lab_tr, epochs=5, verbose=0)
print(final.evaluate(sig_te, lab_te, verbose=0))
"""

# a function that builds the candidate from the learning rate; the best rate kept by the test score
RATES_THROUGH_BUILDER = """\
import numpy as np
import tensorflow as tf
from sklearn.model_selection import train_test_split

def build(rate):
    inputs = tf.keras.Input(shape=(6,))
    hidden = tf.keras.layers.Dense(16, activation="relu")(inputs)
    outputs = tf.keras.layers.Dense(1)(hidden)
    model = tf.keras.Model(inputs, outputs)
    model.compile(optimizer=tf.keras.optimizers.Adam(rate), loss="mse")
    return model

rng = np.random.default_rng(1)
gauges = rng.normal(size=(300, 6))
flow = gauges @ rng.normal(size=6)
g_tr, g_te, f_tr, f_te = train_test_split(gauges, flow, test_size=0.25)
losses = {}
for rate in (1e-3, 1e-2, 1e-1):
    model = build(rate)
    model.fit(g_tr, f_tr, epochs=10, verbose=0)
    losses[rate] = model.evaluate(g_te, f_te, verbose=0)
best = min(losses, key=losses.get)
print(best, losses[best])
"""

# one epoch per pass of a model built once; the best test accuracy over the epochs is the one reported
EPOCHS_ON_TEST = _HEAD + """\
sig_tr, sig_te, lab_tr, lab_te = train_test_split(signals, labels, test_size=0.3)
net = Sequential([Dense(16, activation="relu"), Dense(1, activation="sigmoid")])
net.compile("adam", "binary_crossentropy", metrics=["accuracy"])
top = 0.0
for epoch in range(30):
    net.fit(sig_tr, lab_tr, epochs=1, verbose=0)
    acc = net.evaluate(sig_te, lab_te, verbose=0)[1]
    if acc > top:
        top = acc
print("test accuracy", top)
"""

# the same epochs, the best kept by the validation part; the test part is scored once after the loop
EPOCHS_ON_VALIDATION = _HEAD + """\
sig_tr, sig_te, lab_tr, lab_te = train_test_split(signals, labels, test_size=0.3)
sig_fit, sig_val, lab_fit, lab_val = train_test_split(sig_tr, lab_tr, test_size=0.2)
net = Sequential([Dense(16, activation="relu"), Dense(1, activation="sigmoid")])
net.compile("adam", "binary_crossentropy", metrics=["accuracy"])
top = 0.0
for epoch in range(30):
    net.fit(sig_fit, lab_fit, epochs=1, verbose=0)
    acc = net.evaluate(sig_val, lab_val, verbose=0)[1]
    if acc > top:
        top = acc
print("validation accuracy", top, "test", net.evaluate(sig_te, lab_te, verbose=0))
"""

# a network trained on every row, then evaluated on the test part of a split of those rows
TRAINED_ON_ALL_ROWS = _HEAD + """\
sig_tr, sig_te, lab_tr, lab_te = train_test_split(signals, labels, test_size=0.3)
net = Sequential([Dense(16, activation="relu"), Dense(1, activation="sigmoid")])
net.compile("adam", "binary_crossentropy", metrics=["accuracy"])
net.fit(signals, labels, epochs=5, verbose=0)
print(net.evaluate(sig_te, lab_te, verbose=0))
"""

# trained on the training part only: the single final evaluate is the intended practice
TRAINED_ON_TRAINING_PART = TRAINED_ON_ALL_ROWS.replace("net.fit(signals, labels,", "net.fit(sig_tr, lab_tr,")

# early stopping on the test part given as validation_data (earlystop.py's rule, Keras' EarlyStopping)
STOPPED_ON_TEST = _HEAD + """\
from tensorflow.keras.callbacks import EarlyStopping
sig_tr, sig_te, lab_tr, lab_te = train_test_split(signals, labels, test_size=0.3)
net = Sequential([Dense(16, activation="relu"), Dense(1, activation="sigmoid")])
net.compile("adam", "binary_crossentropy", metrics=["accuracy"])
net.fit(sig_tr, lab_tr, epochs=200, validation_data=(sig_te, lab_te),
        callbacks=[EarlyStopping(patience=5, restore_best_weights=True)], verbose=0)
print(net.evaluate(sig_te, lab_te, verbose=0))
"""

STOPPED_ON_VALIDATION = STOPPED_ON_TEST.replace(
    "net.fit(sig_tr, lab_tr, epochs=200, validation_data=(sig_te, lab_te),",
    "sig_fit, sig_val, lab_fit, lab_val = train_test_split(sig_tr, lab_tr, test_size=0.2)\n"
    "net.fit(sig_fit, lab_fit, epochs=200, validation_data=(sig_val, lab_val),")

# PyTorch's nn.Sequential is no Keras model: a loop over its widths with no Keras evaluate stays as it was
TORCH_SEQUENTIAL = """\
import torch
from torch import nn

for width in [8, 16]:
    net = nn.Sequential(nn.Linear(4, width), nn.ReLU(), nn.Linear(width, 1))
    print(net(torch.zeros(2, 4)))
"""


def test_keras_width_chosen_on_test_is_tuned_on_test(tmp_path: Path) -> None:
    assert ("tuned_on_test", 15) in _alarms(tmp_path, WIDTHS_ON_TEST)


def test_keras_width_chosen_on_validation_is_silent(tmp_path: Path) -> None:
    assert _alarms(tmp_path, WIDTHS_ON_VALIDATION) == set()


def test_keras_builder_function_rate_chosen_on_test(tmp_path: Path) -> None:
    assert ("tuned_on_test", 21) in _alarms(tmp_path, RATES_THROUGH_BUILDER)


def test_keras_best_epoch_on_test_is_tuned_on_test(tmp_path: Path) -> None:
    assert ("tuned_on_test", 15) in _alarms(tmp_path, EPOCHS_ON_TEST)


def test_keras_best_epoch_on_validation_is_silent(tmp_path: Path) -> None:
    assert _alarms(tmp_path, EPOCHS_ON_VALIDATION) == set()


def test_keras_fit_on_every_row_then_evaluate_on_test(tmp_path: Path) -> None:
    assert ("trained_on_test", 12) in _alarms(tmp_path, TRAINED_ON_ALL_ROWS)
    assert _alarms(tmp_path, TRAINED_ON_TRAINING_PART) == set()


def test_keras_early_stopping_on_test_rows(tmp_path: Path) -> None:
    assert ("tuned_on_test", 13) in _alarms(tmp_path, STOPPED_ON_TEST)
    assert _alarms(tmp_path, STOPPED_ON_VALIDATION) == set()


def test_torch_sequential_is_no_keras_model(tmp_path: Path) -> None:
    assert _alarms(tmp_path, TORCH_SEQUENTIAL) == set()
