"""The static leakage analysis on missed-leak kinds labelled as false negatives before stop 55 (issue 17), in both
directions:

* a row cut is a split, a sample, a mask or a slice of rows (rowcuts.py): a training script that parses its lines
  with ``line.split(",")`` or takes its features with ``df.iloc[:, :-1]`` holds no row out, so the model it saves,
  scored by another script on the same table, is scored on its training rows (modelfiles.py); the same for a
  search's choice typed into another script (searchhandoff.py); a script that slices rows (``df.iloc[:800]``) or
  splits them stays silent;
* a hand-written training loop that keeps the epoch with the best held-out score and hands that score on
  (bestepochs.py): ``if val_score > best: best = val_score`` then ``fold_scores.append(best)``, or the best
  state loaded back and the same rows scored again, or ``max(test_accs)`` returned; silent when the best only
  picks a checkpoint that a test-named part then scores, and for a training loss's best.

Every example is written for this test."""

from __future__ import annotations

from tests.detect.test_leakage_handed_on import write
from tests.detect.test_leakage_misses54 import alarms, line_of


# ---------------------------------------------------------------- a string split or a column slice cuts no rows

#: a two-script project: the first fits on every row of a table and saves the model, the second scores that table
TRAINER = """\
    import pickle
    import numpy as np
    import pandas as pd
    from sklearn.tree import DecisionTreeClassifier

    frame = pd.read_csv('data/readings.csv')
    units = [u.split(':')[0] for u in frame['unit']]
    feats = frame.iloc[{rows}:, :-1]
    sensor = np.asarray(feats)[:, 1:]
    tree = DecisionTreeClassifier(max_depth=4).fit(sensor, frame['alarm'][{rows}:])
    with open('artifacts/tree.pkl', 'wb') as fh:
        pickle.dump(tree, fh)
"""

SCORER = """\
    import pickle
    import numpy as np
    import pandas as pd
    from sklearn.metrics import f1_score

    frame = pd.read_csv('data/readings.csv')
    tree = pickle.load(open('artifacts/tree.pkl', 'rb'))
    guesses = tree.predict(np.asarray(frame.iloc[:, :-1])[:, 1:])
    print('F1', f1_score(frame['alarm'], guesses))
"""


def test_a_model_saved_after_string_splits_and_column_slices_is_scored_on_its_training_rows(tmp_path):
    write(tmp_path, "train_tree.py", TRAINER.format(rows=""))
    path = write(tmp_path, "score_tree.py", SCORER)
    assert ("trained_on_test", line_of(path, "tree.predict(")) in alarms(path)


def test_a_model_saved_after_a_slice_of_rows_is_silent(tmp_path):
    write(tmp_path, "train_tree.py", TRAINER.format(rows="800"))
    path = write(tmp_path, "score_tree.py", SCORER)
    assert "trained_on_test" not in [k for k, _ in alarms(path)]


def test_a_scorer_that_splits_its_rows_is_silent(tmp_path):
    write(tmp_path, "train_tree.py", TRAINER.format(rows=""))
    path = write(tmp_path, "score_tree.py", SCORER.replace(
        "tree = pickle.load", "from sklearn.model_selection import train_test_split\n"
        "    _, frame = train_test_split(frame, test_size=0.2)\n    tree = pickle.load"))
    assert "trained_on_test" not in [k for k, _ in alarms(path)]


def test_a_row_cut_is_a_split_a_sample_a_mask_or_a_row_slice_not_a_string_split_or_a_column_slice():
    import ast

    from faultlib.detect.data.leakage.rowcuts import cuts_rows

    def cuts(code: str) -> bool:
        return cuts_rows(ast.parse(code))

    assert not cuts("parts = line.split(',')\nname = path.split('/')[-1]\nX = df.iloc[:, :-1]\nZ = A[:, 2:]")
    assert not cuts("import sys\nargs = sys.argv[1:]\nprint(text[:80])\nd = df.sample(frac=1)")
    assert not cuts("head = 'abc'[:2]\nstem = fname.split('.')[0][:10]\nc = df.loc[:, 'a':'f']")
    assert cuts("X_fit = X[:800]")
    assert cuts("tail = df.iloc[-100:, :]")
    assert cuts("for tr, te in folds.split(X, y):\n    pass")
    assert cuts("keep = np.random.rand(len(df)) < 0.8\nfit = df[keep]")
    assert cuts("few = df.sample(n=500)")
    assert cuts("first = df.head(1000)")
    assert cuts("parts = torch.utils.data.random_split(ds, [80, 20])")


# ---------------------------------------------------------------- the best epoch's held-out score handed on

#: a hand-written PyTorch cross-validation: each fold keeps the epoch with the best validation error
EPOCHS = """\
    import numpy as np
    import torch
    from torch.utils.data import DataLoader, TensorDataset

    def run_epoch(net, loader, opt):
        net.train()
        for xb, yb in loader:
            opt.zero_grad()
            loss = torch.nn.functional.mse_loss(net(xb), yb)
            loss.backward()
            opt.step()

    def rmse_on(net, loader):
        net.eval()
        with torch.no_grad():
            errs = [((net(xb) - yb) ** 2).mean().item() for xb, yb in loader]
        return float(np.sqrt(np.mean(errs)))

    X = torch.randn(500, 6)
    y = torch.randn(500, 1)
    fold_rmse = []
    for fold in range(5):
        hold = np.arange(500) % 5 == fold
        fit_loader = DataLoader(TensorDataset(X[~hold], y[~hold]), batch_size=32, shuffle=True)
        val_loader = DataLoader(TensorDataset(X[hold], y[hold]), batch_size=64)
        net = torch.nn.Linear(6, 1)
        opt = torch.optim.Adam(net.parameters())
        lowest = float('inf')
        for epoch in range(40):
            run_epoch(net, fit_loader, opt)
            err = rmse_on(net, val_loader)
            if err < lowest:
                lowest = err
                kept = {k: v.clone() for k, v in net.state_dict().items()}
        {after}
    print('cv rmse', np.mean(fold_rmse))
"""


def test_the_best_epochs_validation_score_stored_as_the_fold_score_is_tuned_on_test(tmp_path):
    path = write(tmp_path, "cv_net.py", EPOCHS.replace("{after}", "fold_rmse.append(lowest)"))
    assert ("tuned_on_test", line_of(path, "if err < lowest")) in alarms(path)


def test_the_best_epoch_loaded_back_and_scored_on_the_same_fold_is_tuned_on_test(tmp_path):
    after = "net.load_state_dict(kept)\n        fold_rmse.append(rmse_on(net, val_loader))"
    path = write(tmp_path, "cv_net.py", EPOCHS.replace("{after}", after))
    assert ("tuned_on_test", line_of(path, "if err < lowest")) in alarms(path)


def test_a_comparison_bound_to_a_name_before_the_if_is_the_same_choice(tmp_path):
    body = EPOCHS.replace("            if err < lowest:", "            better = err < lowest\n            if better:")
    path = write(tmp_path, "cv_net.py", body.replace("{after}", "fold_rmse.append(lowest)"))
    assert ("tuned_on_test", line_of(path, "better = err < lowest")) in alarms(path)


def test_the_best_epoch_chosen_on_validation_then_scored_on_a_test_part_is_silent(tmp_path):
    after = ("net.load_state_dict(kept)\n        test_loader = DataLoader(TensorDataset(X[:50], y[:50]))\n"
             "        fold_rmse.append(rmse_on(net, test_loader))\n        print('best val', lowest)")
    path = write(tmp_path, "cv_net.py", EPOCHS.replace("{after}", after))
    assert ("tuned_on_test", line_of(path, "if err < lowest")) not in alarms(path)


def test_a_best_kept_only_for_the_checkpoint_is_silent(tmp_path):
    after = "torch.save(kept, f'fold{fold}.pt')"
    path = write(tmp_path, "cv_net.py", EPOCHS.replace("{after}", after))
    assert "tuned_on_test" not in [k for k, _ in alarms(path)]


def test_the_best_training_loss_handed_on_is_silent(tmp_path):
    body = EPOCHS.replace("err = rmse_on(net, val_loader)", "err = rmse_on(net, fit_loader)")
    path = write(tmp_path, "cv_net.py", body.replace("{after}", "fold_rmse.append(lowest)"))
    assert "tuned_on_test" not in [k for k, _ in alarms(path)]


#: the best test accuracy over the epochs, collected in a list and returned
LIST_MAX = """\
    import numpy as np
    import torch

    def one_pass(model, opt, batches):
        for xb, yb in batches:
            opt.zero_grad()
            torch.nn.functional.cross_entropy(model(xb), yb).backward()
            opt.step()

    def accuracy(model, batches):
        hits = sum((model(xb).argmax(1) == yb).sum().item() for xb, yb in batches)
        return hits / sum(len(yb) for _, yb in batches)

    def experiment(model, opt, train_batches, test_batches, n_epochs=10):
        accs = []
        for ep in range(n_epochs):
            one_pass(model, opt, train_batches)
            accs.append(accuracy(model, {scored}))
        return {result}
"""


def test_the_largest_test_accuracy_over_epochs_returned_is_tuned_on_test(tmp_path):
    path = write(tmp_path, "exp.py", LIST_MAX.format(scored="test_batches", result="max(accs)"))
    assert ("tuned_on_test", line_of(path, "return max(accs)")) in alarms(path)


def test_the_last_epochs_test_accuracy_returned_is_silent(tmp_path):
    path = write(tmp_path, "exp.py", LIST_MAX.format(scored="test_batches", result="accs[-1]"))
    assert "tuned_on_test" not in [k for k, _ in alarms(path)]


# ---------------------------------------------------------------- torch Subset ranges: a split of positions in order

#: a load series scaled, cut into windows by a Dataset class of the script's own, then parted by Subset ranges
SUBSETS = """\
    import numpy as np
    import pandas as pd
    import torch
    from torch.utils.data import DataLoader, Dataset, Subset
    from sklearn.preprocessing import StandardScaler

    class Windows(Dataset):
        def __init__(self, table, width=12):
            self.X = torch.tensor(np.stack([table[i:i + width] for i in range(len(table) - width)]))
            self.y = torch.tensor(table[width:, 0])

        def __len__(self):
            return len(self.y)

        def __getitem__(self, i):
            return self.X[i], self.y[i]

    readings = pd.read_csv('meter.csv')[['kwh', 'temp']]
    {scaled}
    windows = Windows(scaled)
    n_fit = int(0.8 * len(windows))
    fit_set = Subset(windows, range(0, n_fit))
    {held}
    net = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(24, 1))
    opt = torch.optim.Adam(net.parameters())
    for xb, yb in DataLoader(fit_set, batch_size=32, shuffle=True):
        opt.zero_grad()
        torch.nn.functional.mse_loss(net(xb.float()).squeeze(1), yb.float()).backward()
        opt.step()
"""


def test_a_scaler_over_the_whole_series_before_subset_ranges_is_a_fit_before_the_split(tmp_path):
    path = write(tmp_path, "load.py", SUBSETS.format(
        scaled="scaled = StandardScaler().fit_transform(readings)",
        held="last_set = Subset(windows, list(range(n_fit, len(windows))))"))
    assert ("fit_before_split", line_of(path, "scaled = StandardScaler")) in alarms(path)


def test_a_scaler_fitted_on_the_first_rows_before_subset_ranges_is_silent(tmp_path):
    scaled = ("cut = int(0.8 * len(readings))\n    scaled = StandardScaler().fit(readings[:cut]).transform(readings)")
    path = write(tmp_path, "load.py", SUBSETS.format(
        scaled=scaled, held="last_set = Subset(windows, list(range(n_fit, len(windows))))"))
    assert "fit_before_split" not in [k for k, _ in alarms(path)]


def test_a_single_subset_range_is_a_subsample_not_a_split(tmp_path):
    path = write(tmp_path, "load.py", SUBSETS.format(
        scaled="scaled = StandardScaler().fit_transform(readings)", held="print(len(fit_set))"))
    assert "fit_before_split" not in [k for k, _ in alarms(path)]


#: one fold's training in a function that returns the best validation error of its epochs
FOLD_FN = """\
    import numpy as np
    import torch

    def fit_fold(net, opt, fit_batches, val_batches):
        best = float('inf')
        for epoch in range(25):
            for xb, yb in fit_batches:
                opt.zero_grad()
                torch.nn.functional.mse_loss(net(xb), yb).backward()
                opt.step()
            with torch.no_grad():
                val_err = sum(torch.nn.functional.mse_loss(net(xb), yb).item() for xb, yb in val_batches)
            if val_err < best:
                best = val_err
        return best

    {caller}
"""


def test_a_validation_best_returned_to_a_caller_that_averages_the_folds_is_tuned_on_test(tmp_path):
    caller = ("total = 0.0\n    for k in range(5):\n        s = fit_fold(torch.nn.Linear(3, 1), None, [], [])\n"
              "        total += s / 5\n    print('cv error', total)")
    path = write(tmp_path, "folds.py", FOLD_FN.format(caller=caller))
    assert ("tuned_on_test", line_of(path, "if val_err < best")) in alarms(path)


def test_a_validation_best_returned_as_a_search_objective_is_silent(tmp_path):
    caller = ("import optuna\n\n    def objective(trial):\n        net = torch.nn.Linear(3, 1)\n"
              "        return fit_fold(net, torch.optim.SGD(net.parameters(), lr=trial.suggest_float('lr', 1e-4, 1e-1)),"
              " [], [])\n\n    optuna.create_study().optimize(objective, n_trials=20)")
    path = write(tmp_path, "folds.py", FOLD_FN.format(caller=caller))
    assert "tuned_on_test" not in [k for k, _ in alarms(path)]
