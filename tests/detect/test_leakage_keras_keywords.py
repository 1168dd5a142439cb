"""Rows handed to a Keras model by keyword (``fit_generator(generator=...)``, ``predict_generator(generator=...)``)
reach the model as they do positionally (vocab.model_input). Every example is written for this test."""

from __future__ import annotations

from pathlib import Path

from tests.detect.leakage_source import alarms

# both files stacked and scaled together, cut back by the training length, and fed to the network only through
# batch generators passed by keyword
STACK_SCALED_FED_BY_KEYWORD = """\
import pandas as pd
from keras.layers import Dense
from keras.models import Sequential
from sklearn.preprocessing import StandardScaler


def batches(X, y, size):
    while True:
        for start in range(0, X.shape[0], size):
            yield X[start:start + size], y[start:start + size]


def rows_only(X, size):
    while True:
        for start in range(0, X.shape[0], size):
            yield X[start:start + size]


train = pd.read_csv("train.csv")
test = pd.read_csv("test.csv")
y = train["loss"].values
n_train = train.shape[0]
both = pd.concat((train, test), axis=0)
X = SCALED
X_train = X[:n_train]
X_test = X[n_train:]
net = Sequential()
net.add(Dense(1, input_dim=2))
net.compile(loss="mae", optimizer="adam")
net.fit_generator(generator=batches(X_train, y, 64), samples_per_epoch=n_train, nb_epoch=2)
print(net.predict_generator(generator=rows_only(X_test, 64), val_samples=X_test.shape[0]))
"""


def test_a_scaler_on_both_files_feeding_a_network_by_generator_keyword_is_fit_on_test(tmp_path: Path) -> None:
    text = STACK_SCALED_FED_BY_KEYWORD.replace("SCALED", 'StandardScaler().fit_transform(both[["a", "b"]])')
    assert alarms(tmp_path, text) == {("fit_on_test", 24)}


def test_a_scaler_on_the_training_file_alone_feeding_the_same_generators_is_silent(tmp_path: Path) -> None:
    text = STACK_SCALED_FED_BY_KEYWORD.replace(
        "X = SCALED", 'scaler = StandardScaler().fit(train[["a", "b"]])\nX = scaler.transform(both[["a", "b"]])')
    assert alarms(tmp_path, text) == set()
