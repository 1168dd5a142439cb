"""Static leakage analysis of a Python script or notebook: the abstract interpreter with scikit-learn's meaning.

:class:`~faultlib.pyflow.interp.Interpreter` runs the module abstractly; here every data
value carries its row set and the fits that shaped it (:mod:`faultlib.detect.data.leakage.values`), an
estimator its latest fit, and :mod:`~faultlib.detect.data.leakage.semantics` gives library calls their
meaning. So a scaler fitted inside a helper and returned through two calls is still the same fit, and
``data['train'], data['test'] = train_test_split(...)`` keeps both parts apart.

Findings (kinds in :data:`faultlib.detect.data.leakage.KINDS`), each at the fit (file, line, column,
function) with the estimator named, one finding per fit with its most specific kind:

* ``fit_on_test``: fitted on the test rows themselves, or on rows stacked with them;
* ``reused_across_folds``: fitted once, outside a cross-validation loop, and applied inside it;
* ``fit_before_split``: a transformer/selector/sampler, or a statistic written by hand
  (``df.fillna(df.mean())``, ``(X - X.mean()) / X.std()``), computed on rows that a later split
  (``train_test_split``, a slice, a named test set) sends to test;
* ``fit_outside_cv``: fitted on the rows (and labels) that are then cross-validated
  (``cross_val_score``, ``GridSearchCV.fit``, a ``for train, test in cv.split(X)`` loop);
* ``shuffled_time_split``, ``entity_across_split``: the split itself (see :mod:`.design`).

A fit whose output reaches no model the file trains, scores or saves (a PCA or t-SNE for a plot) is
reported at ``info``; a hand-written statistic that reaches none is not reported. A split of rows that
are already a training part makes a *validation* part, not the test set. When the analysis cannot show
two row sets overlap it says nothing.
"""

from __future__ import annotations

import ast
import dataclasses
from dataclasses import dataclass, field
from typing import Any

from faultlib.detect.data.leakage import vocab
from faultlib.detect.data.leakage.modellists import model_list
from faultlib.detect.data.leakage.refits import caller_name
from faultlib.detect.data.leakage.statunpack import StatisticUnpacking
from faultlib.detect.data.leakage.aliases import ScopeAliases
from faultlib.detect.data.leakage.blocks import BlockUnpacking, Blocks, empty_list, joined_blocks
from faultlib.detect.data.leakage.dateslices import period_keys
from faultlib.detect.data.leakage.dynglobals import DynamicGlobals
from faultlib.detect.data.leakage.generators import is_generator
from faultlib.detect.data.leakage.params import (
    column_names,
    frame_loop_names,
    parameter_bindings,
    reaches_columns,
    string_loop_names,
)
from faultlib.detect.data.leakage.returnednames import returned_name_bindings
from faultlib.detect.data.leakage.counts import SizeCalls
from faultlib.detect.data.leakage.countkeys import CountKeys
from faultlib.detect.data.leakage.bootstraps import PandasBootstraps
from faultlib.detect.data.leakage.bestepochs import best_epoch_findings
from faultlib.detect.data.leakage.bestscores import BestScores
from faultlib.detect.data.leakage.tuners import TunerReports
from faultlib.detect.data.leakage.rescored import RescoredSearches
from faultlib.detect.data.leakage.predefined import PredefinedFolds
from faultlib.detect.data.leakage.ducks import DuckModels, duck_models
from faultlib.detect.data.leakage.clusterscores import ClusterScores
from faultlib.detect.data.leakage.foldrankings import FoldRankings
from faultlib.detect.data.leakage.spelledreports import SpelledReports
from faultlib.detect.data.leakage.pairreturns import OPTION as TUPLE_RETURNS, PairReturns, tuple_roles
from faultlib.detect.data.leakage.records import RecordFields
from faultlib.detect.data.leakage.namelists import ColumnNameLists, chosen_names
from faultlib.detect.data.leakage.design import DesignChecks
from faultlib.detect.data.leakage.windows import window_starts
from faultlib.detect.data.leakage.unscored import SplitReach, before_dead_split
from faultlib.detect.data.leakage.heldouttrains import before_training_only_split
from faultlib.detect.data.leakage.shown import ShownPredictions
from faultlib.detect.data.leakage.handoff import FileHandoff
from faultlib.detect.data.leakage.datamodules import DataModules
from faultlib.detect.data.leakage.fresh import FreshTable, FreshTables, still_empty
from faultlib.detect.data.leakage.oofarrays import filled_by_folds
from faultlib.detect.data.leakage.reportedlines import split_findings
from faultlib.detect.data.leakage.allocations import FreshArrays
from faultlib.detect.data.leakage.keyeddicts import LoopKeyedDicts
from faultlib.detect.data.leakage.testlabels import TestTrainedModels
from faultlib.detect.data.leakage.testcurves import read_off_curves, test_curves
from faultlib.detect.data.leakage.devparts import dev_is_training, only_dev
from faultlib.detect.data.leakage.modelkinds import kind_rank
from faultlib.detect.data.leakage.repeatedlists import RepeatedLists
from faultlib.detect.data.leakage.columnfilters import ColumnFilters
from faultlib.detect.data.leakage.scoretables import ScoreTables
from faultlib.detect.data.leakage.pictureembeds import picture_embedding
from faultlib.detect.data.leakage.spreadfilters import spread_filters
from faultlib.detect.data.leakage.constancy import constancy_tests
from faultlib.detect.data.leakage.carriedweights import carried_weights
from faultlib.detect.data.leakage.stackfits import ScoredWeights, stacked_findings
from faultlib.detect.data.leakage.learntparams import helper_scored_fits
from faultlib.detect.data.leakage.fractioncuts import fraction_bound
from faultlib.detect.data.leakage.unlabelledtests import UnlabelledTests
from faultlib.detect.data.leakage.wrapperselect import WrapperSelectors
from faultlib.detect.data.leakage.callsites import function_at
from faultlib.detect.data.leakage.embeddings import EmbeddingSemantics, in_place
from faultlib.detect.data.leakage.flags import FlagFeatures, flag_compares
from faultlib.detect.data.leakage.bestrefits import rescored_parts
from faultlib.detect.data.leakage.pseudolabels import PseudoLabels
from faultlib.detect.data.leakage.labelfills import LabelFills
from faultlib.detect.data.leakage.emptyguards import EmptyInputGuards
from faultlib.detect.data.leakage.fitswitch import FitSwitches
from faultlib.detect.data.leakage.moduleflags import ModuleSwitches
from faultlib.detect.data.leakage.attrtables import AttributeTables
from faultlib.detect.data.leakage.forwardgrids import ForwardGrids
from faultlib.detect.data.leakage.keyedcalls import KeyedCalls
from faultlib.detect.data.leakage.earlystop import EarlyStops
from faultlib.detect.data.leakage.kerastuners import KerasTunerSearches
from faultlib.detect.data.leakage.evalsets import EvalSets
from faultlib.detect.data.leakage.torchmodules import TorchModules
from faultlib.detect.data.leakage.ownrowscores import OwnRowScores
from faultlib.detect.data.leakage.boostercv import BoosterCV
from faultlib.detect.data.leakage.encodingfolds import EncodingFolds
from faultlib.detect.data.leakage.fileentities import file_entity_findings
from faultlib.detect.data.leakage.rowunits import row_unit_findings
from faultlib.detect.data.leakage.recordingframes import frame_stack_reports
from faultlib.detect.data.leakage.personfolders import person_folder_reports
from faultlib.detect.data.leakage.pooledfolds import pooled_fold_reports
from faultlib.detect.data.leakage.maskfolds import mask_overlap_findings
from faultlib.detect.data.leakage.samerows import same_rows_calls
from faultlib.detect.data.leakage.targetfeatures import target_feature_findings
from faultlib.detect.data.leakage.labelinputs import label_input_findings
from faultlib.detect.data.leakage.valparams import ValidationScores
from faultlib.detect.data.leakage.foldcols import FoldColumns, enumerated_pair, fold_positions, named_fold_loop
from faultlib.detect.data.leakage.inputfns import InputFunctions
from faultlib.detect.data.leakage.deadhelpers import UncalledHelpers
from faultlib.detect.data.leakage.frames import Drawn, FrameSemantics
from faultlib.detect.data.leakage.polars_exprs import PlExpr, combined_expr
from faultlib.detect.data.leakage.handpicked import HandPicked
from faultlib.detect.data.leakage.exclusions import excluded_columns
from faultlib.detect.data.leakage.listedcols import ListedColumns
from faultlib.detect.data.leakage.deletedcols import DeletedColumns
from faultlib.detect.data.leakage.columnreads import ColumnReads
from faultlib.detect.data.leakage.returned import ReturnedToCaller
from faultlib.detect.data.leakage.inherited import InheritedMethods
from faultlib.detect.data.leakage.cachereturns import CachedResults
from faultlib.detect.data.leakage.columnitems import ColumnItems
from faultlib.detect.data.leakage.lambdastats import ClosedOverStatistics
from faultlib.detect.data.leakage.groupitems import GroupItems
from faultlib.detect.data.leakage.fittedslots import FittedSlots
from faultlib.detect.data.leakage.selfcolumns import kept_column_lists, selects_kept_columns
from faultlib.detect.data.leakage.loopitems import LoopItems, every_row_indices
from faultlib.detect.data.leakage.masks import MaskIdentity
from faultlib.detect.data.leakage.objectives import objective_facts
from faultlib.detect.data.leakage.origintargets import OriginTargets
from faultlib.detect.data.leakage.silentstops import SilentStops
from faultlib.detect.data.leakage.tuningstops import TuningStops
from faultlib.detect.data.leakage.idlefits import IdleFits
from faultlib.detect.data.leakage.partflags import PartFlags
from faultlib.detect.data.leakage.polarsrows import PolarsRows
from faultlib.detect.data.leakage.labelgaps import LabelGaps
from faultlib.detect.data.leakage.memberparts import MemberParts
from faultlib.detect.data.leakage.registries import ModelRegistries
from faultlib.detect.data.leakage.outliers import OutlierMasks
from faultlib.detect.data.leakage.byuse import ByUse, detector_choice, is_detector_fit
from faultlib.detect.data.leakage.kerasmodels import KerasModels, keras_constructors, keras_loops
from faultlib.detect.data.leakage.ownmodels import OwnModels
from faultlib.detect.data.leakage.libstores import LibraryStores
from faultlib.detect.data.leakage.savehelpers import SaveHelpers
from faultlib.detect.data.leakage.statlists import StatisticLists
from faultlib.detect.data.leakage.membership import RelabelledMembers
from faultlib.detect.data.leakage.itemwindows import item_window_starts
from faultlib.detect.data.leakage.searchfirst import SearchesBeforeSplits
from faultlib.detect.data.leakage.powerfits import PowerFits
from faultlib.detect.data.leakage.winsorfits import WinsorFits
from faultlib.detect.data.leakage.selectors import IMPORTANCES, FunctionalFits
from faultlib.detect.data.leakage.transposed import TransposedTables
from faultlib.detect.data.leakage.classtests import result_field
from faultlib.detect.data.leakage.keptparts import dropped_second_parts, kept_second_parts
from faultlib.detect.data.leakage.refits import names_a_test_set
from faultlib.detect.data.leakage.ownfiles import names_a_held_out_file, written_files
from faultlib.detect.data.leakage.sole_file import renamed_whole, sole_data_file
from faultlib.detect.data.leakage.statements import statement_starts
from faultlib.detect.data.leakage.trainrows import label_cuts, train_row_counts
from faultlib.detect.data.leakage.monitors import monitor_cuts
from faultlib.detect.data.leakage.textkeys import formatted_text
from faultlib.detect.data.leakage.unlabelled import UnlabelledRows
from faultlib.detect.data.leakage.thresholds import ThresholdChoices
from faultlib.detect.data.leakage.pairpicks import PairPicks
from faultlib.detect.data.leakage.singlesamples import SingleSamples
from faultlib.detect.data.leakage.reportpicks import ReportPicks
from faultlib.detect.data.leakage.tablepicks import TablePicks
from faultlib.detect.data.leakage.dartsstops import DartsStops
from faultlib.detect.data.leakage.validation import ValidationChecks
from faultlib.detect.data.leakage.semantics import EstimatorSemantics, FitSite, data_rows_child
from faultlib.detect.data.leakage.values import as_data, maybe_data
from faultlib.detect.data.leakage.choices import ChoiceChecks, bindings, loop_facts, names_columns, reflection
from faultlib.detect.data.leakage.bestitems import BestItems
from faultlib.detect.data.leakage.keptnames import KeptNames, kept_names_joined
from faultlib.detect.data.leakage.guardeddrops import GuardedDrops
from faultlib.detect.data.leakage.classstats import chooses
from faultlib.detect.data.leakage.rowdraws import function_spans, label_columns
from faultlib.detect.data.leakage.targets import target_columns
from faultlib.detect.data.leakage.scoring import selection
from faultlib.detect.data.leakage.source import SourceMap
from faultlib.detect.data.leakage.values import (
    Data, Est, FitRef, FoldIdx, FoldIter, Indexer, MaybeData, RowUnion, Rows, Step, has_split, is_test_rows,
    is_training_part, new_id, parts)
from faultlib.findings import Finding, Severity
from faultlib.pyflow.interp import Frame, Interpreter
from faultlib.pyflow.values import UNKNOWN, Bound, Const, Container, Tup
from faultlib.pyflow.walk import walk_once

DETECTOR = "leakage"
TRANSFORMER_BASES = frozenset({"TransformerMixin", "SelectorMixin", "OneToOneFeatureMixin"})
MODEL_BASES = frozenset({"ClassifierMixin", "RegressorMixin"})


@dataclass
class StaticReport:
    """Findings and the fits seen; ``complete`` is False (and ``stopped`` says why) when the analysis stopped early."""

    findings: list[Finding] = field(default_factory=list)
    fits: list[FitSite] = field(default_factory=list)
    # files written with rows shaped by a fit (the paths, normalised; see handoff.py): a script reading one may
    # split or score them (repofiles.py)
    fitted_writes: list[Any] = field(default_factory=list)
    # the lines of the statements whose fits shaped those files (``(file, cell, line)``, cell 0 in a script): a
    # hand-on keeps only findings there, outside the writer's own script or for a notebook writer (repofiles.py)
    written_fits: set[tuple[str, int, int]] = field(default_factory=set)
    # the findings (``(file, cell, line)``) whose fit only a save reached: the joins with the file's readers decide
    # (savedreach.py)
    saved_only: set[tuple[str, int, int]] = field(default_factory=set)
    # a table written earlier in the program was read back (handoff.py)
    read_back: bool = False
    complete: bool = True
    stopped: str | None = None


class Analyzer(DartsStops, TablePicks, ColumnFilters, RepeatedLists, StatisticLists, UnlabelledTests, ScoredWeights, ScoreTables, ReportPicks, SpelledReports,
               DeletedColumns, ColumnReads, ListedColumns, ShownPredictions,
               UnlabelledRows, BestItems, KeptNames, GuardedDrops, ThresholdChoices, WrapperSelectors, TunerReports, BestScores,
               RescoredSearches, SearchesBeforeSplits, DuckModels, RecordFields,
               ColumnNameLists, PredefinedFolds, PairPicks, SingleSamples,
               SizeCalls, CountKeys, PandasBootstraps, MemberParts, PolarsRows, LabelGaps, PartFlags, FreshArrays, FittedSlots, LoopKeyedDicts, ValidationScores, TestTrainedModels,
               FreshTables,
               LabelFills,
               OriginTargets,
               SilentStops,
               TuningStops,
               IdleFits,
               FileHandoff, DataModules, ReturnedToCaller, ClosedOverStatistics, HandPicked, FlagFeatures, FoldColumns, KerasTunerSearches, EarlyStops, BoosterCV, EncodingFolds, EvalSets, PowerFits, WinsorFits,
               PairReturns, FoldRankings, ClusterScores, InputFunctions, EmbeddingSemantics, MaskIdentity, OutlierMasks, KerasModels, OwnModels, TorchModules, OwnRowScores, ByUse, DesignChecks, ChoiceChecks,
               FrameSemantics, ValidationChecks, TransposedTables, FunctionalFits, EstimatorSemantics, ScopeAliases, LoopItems, GroupItems, ColumnItems,
               ForwardGrids, AttributeTables, StatisticUnpacking, BlockUnpacking, DynamicGlobals, EmptyInputGuards, PseudoLabels, FitSwitches, ModuleSwitches, KeyedCalls, ModelRegistries,
               SplitReach, InheritedMethods, CachedResults, LibraryStores, SaveHelpers, RelabelledMembers, UncalledHelpers,
               Interpreter):
    """Run the leakage analysis of one module.

    Args:
        tree: the parsed module.
        smap: maps lines back to the user's file (and notebook cells).
    """

    join_one_armed_if = True  # fill = s.median(); if isna(fill): fill = 0 -- the median may still fill the rows
    follow_handler_returns = True  # except ValueError: write_fallback(); return -- the model code after it runs
    follow_guard_returns = True  # if len(df) < 50: log(...); return None -- the model code after the guard runs
    data_of = staticmethod(maybe_data)  # a value as data or None, for mixins below semantics.py (choices.py)

    def __init__(self, tree: ast.Module, smap: SourceMap):
        Interpreter.__init__(self, tree, smap.describe)
        self.smap = smap
        self.report = StaticReport()
        self._reused: set[tuple[int, int]] = set()
        self._seen: set[tuple[str, int, int]] = set()
        self._fit_sites: set[tuple[int, int]] = set()
        self._pending: list[dict[str, Any]] = []
        self._reached: set[tuple[int, int]] = set()  # fit sites whose output reached a model or was saved
        self._reached_weak: set[tuple[int, int]] = set()  # ... or only reached rows named for testing
        self._test_parts: list[Rows] = []  # every held-out part a split made so far
        self._split_roots: set[Any] = set()  # roots whose rows a split divided (into train/test or train/validation)
        self._selections: list[tuple[Any, list[Rows]]] = []  # cross-validations over rows holding a test part
        self._discarded: set[int] = set()  # splits whose held-out part was thrown away (``_``): subsamples
        self._kept_second_parts = kept_second_parts(tree)  # splits whose training parts are thrown away (keptparts.py)
        self._dropped_second_parts = dropped_second_parts(tree)  # ... or whose held-out parts are (keptparts.py)
        self._test_set_named = names_a_test_set(tree)  # validation rows may join a final refit (refits.py)
        self._caller_names: dict[int, str] = {}  # a helper's table by the name its caller binds (refits.py)
        self._loop_spans = [(n.lineno, n.end_lineno or n.lineno) for n in walk_once(tree) if isinstance(
            n, (ast.For, ast.While, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp))]
        # a file read under a held-out name (Kaggle's test.csv): then train.csv holds training rows only
        written = written_files(tree)  # a file the script writes from its own rows is no test file (ownfiles.py)
        self._separate_test_file = any(names_a_held_out_file(n.value, written) for n in walk_once(tree)
            if isinstance(n, ast.Constant) and isinstance(n.value, str) and len(n.value) < 400)
        self._sole_data_file = None if self._separate_test_file else sole_data_file(tree)
        self._train_counts = train_row_counts(tree, self._separate_test_file)  # X[num_train:] is test.csv's rows
        self._constancy = constancy_tests(tree)  # x.nunique() <= 1, x.std() == 0: no fit (constancy.py)
        self._spread_filters = spread_filters(tree, self._constancy)  # X.loc[:, X.var() > t] (spreadfilters.py)
        self._dev_training = dev_is_training(tree)  # dev_idx, ext_idx = split(...): 'dev' is training (devparts.py)
        self._monitors = monitor_cuts(tree)  # X_val = X[idx] in def train(X, y): the helper's own monitor
        keras = keras_constructors(tree)  # Keras models and the file's functions that build one (kerasmodels.py)
        self._loop_facts = keras_loops(loop_facts(tree, duck_models(tree) | keras), tree, keras) + objective_facts(
            tree)  # try candidates, keep the best
        self._loop_facts = read_off_curves(self._loop_facts, test_curves(tree))  # or report each (testcurves.py)
        self._picks_rescored = rescored_parts(tree, self._loop_facts)  # a search's pick scored on its rows (bestrefits.py)
        self._call_lines: list[int] = []  # lines of the user-function calls running now
        self._same_rows = same_rows_calls(tree)  # fit_svr(X, y, X): the "test" input is the training rows
        self._tuned: set[int] = set()
        self._stopped: set[int] = set()  # training calls reported for early stopping on the test rows
        self._code_tables: set[int] = set()  # lines of encoders fitted on train and test stacked (codetables.py)
        self._targets, self._assigned = target_columns(tree)
        counts, self._bare_label_lines = label_cuts(tree, self._targets)  # all[all.y == -1]: the rows without a label
        self._train_counts |= counts
        self._flag_compares = flag_compares(tree, self._targets)  # 0/1 feature columns cut at a statistic
        self._in_place = in_place(tree)  # words = [stem(w) for w in words]: one text rewritten item by item
        self._bindings = bindings(tree)
        self._function_spans = function_spans(tree)  # a stack's names read in their own function (rowdraws.py)
        self._label_columns = label_columns(tree, self._bindings, self._targets)  # also ys = df['fraud']; fit(X, ys)
        self._parameters = [(a.arg, n.lineno, n.end_lineno or n.lineno) for n in walk_once(tree) if isinstance(
            n, (ast.FunctionDef, ast.AsyncFunctionDef)) for a in [*n.args.posonlyargs, *n.args.args, *n.args.kwonlyargs]]
        self._every_row = every_row_indices(tree)
        # slices of a series at consecutive starts (windows.py), or the same windows gathered item by item
        self._windows = {**window_starts(tree), **item_window_starts(tree)}  # (itemwindows.py)
        self._window_lines: set[int] = set()  # the lines where such a window was cut: its rows carry a step there
        self._periods = period_keys(tree)  # X['2018'] beside X[:'2017']: the rows of a period (dateslices.py)
        self._column_names = column_names(self._bindings, parameter_bindings(tree)) | frame_loop_names(
            tree, self._bindings) | string_loop_names(tree, self._bindings)  # also via a helper's parameters; for
        # col in table: its column labels; for col in ['age', ...]: a label (params.py)
        handed = returned_name_bindings(tree)  # num_cols, cat_cols = feature_types(df)
        if handed:
            merged = {k: [*self._bindings.get(k, ()), *handed.get(k, ())] for k in {*self._bindings, *handed}}
            self._column_names |= column_names(merged, parameter_bindings(tree))
        DesignChecks.__init__(self)
        FrameSemantics.__init__(self)

    def run(self) -> StaticReport:
        self.interpret()
        self.report.complete, self.report.stopped = self.complete, self.stopped
        self._own_row_findings()  # scored only on the rows it was fitted on (ownrowscores.py)
        self._finalize()
        self._carried_weights()
        self.report.findings += stacked_findings(self.tree, self.smap, self.report.findings, helper_scored_fits(
            self.tree))  # (stackfits.py; fitted cuts scored through a helper: learntparams.py)
        self.report.findings += mask_overlap_findings(  # hand-cut fold masks that overlap (maskfolds.py)
            self.tree, self.smap, self.report.findings, function_at)
        self.report.findings += file_entity_findings(self.tree, self.smap, self.report.findings, function_at)
        self.report.findings += row_unit_findings(self.tree, self.smap, self.report.findings, function_at)
        self.report.findings += split_findings("entity_across_split", [  # frames, person folders, pooled folds
            r for rule in (frame_stack_reports, person_folder_reports, pooled_fold_reports)
            for r in rule(self.tree, self.smap)], self.tree, self.smap, self.report.findings, function_at)
        self.report.findings += target_feature_findings(self.tree, self.smap, self.report.findings, function_at)
        self.report.findings += label_input_findings(self.tree, self.smap, self.report.findings, function_at)
        self.report.findings += best_epoch_findings(self.tree, self.smap, self.report.findings, function_at)
        return self.report

    def _carried_weights(self) -> None:
        """One Keras model fitted on each pass of a re-splitting loop, never rebuilt (carriedweights.py)."""
        seen = {(f.kind, f.location.get("line"), f.location.get("file")) for f in self.report.findings}
        for c in carried_weights(self.tree):
            where = self.smap.where(c.fit_line)
            if ("trained_on_test", where.get("line"), where.get("file")) in seen:
                continue
            self.report.findings.append(Finding(
                DETECTOR, Severity.ERROR,
                f"Keras model `{c.model}` is fitted ({self.smap.describe(c.fit_line)}) on each pass of the loop on "
                f"{self.smap.describe(c.loop_line)}, which draws a new split every pass, but the model is built "
                "before the loop: fit resumes from the weights of the earlier passes, whose training rows include "
                f"this pass's test rows, and the score on {self.smap.describe(c.score_line)} is optimistic. Fix: "
                "build the model (or clone_model it, or set_weights back to the initial weights) inside the loop",
                {**where, "column": c.fit_column + 1, "function": function_at(self.tree, c.fit_line)},
                {"estimator": "keras model", "variable": c.model, "loop": self.smap.where(c.loop_line),
                 "at": self.smap.where(c.score_line)}, kind="trained_on_test"))

    # ------------------------------------------------------------------ data-specific hooks

    def _named(self, name: str, value: Any, line: int) -> Any:
        if name == "_" and isinstance(value, Data):  # data, _, y, _ = train_test_split(...): a subsample
            self._discarded.update(s.ident for p in parts(value.rows) for s in p.steps[-1:]
                                   if s.kind == "split" and s.part in ("test", "val"))
        if isinstance(value, MaybeData) and value.whole and not value.used_as_data and value.name != name:
            value = renamed_whole(value, name, line)  # train_df = pd.read_csv(only_file): rows named by the variable
        if still_empty(value):
            return FreshTable(name, line)  # feat = pd.DataFrame(): empty until a column fills it (fresh.py)
        if value is UNKNOWN or isinstance(value, MaybeData) and not value.used_as_data and vocab.looks_like_test(name) \
                and not vocab.looks_like_test(value.name) and not vocab.looks_like_train(value.name):
            return self._opaque(name, line)  # an unknown value first seen under a held-out name (X_test = X_train: no)
        if isinstance(value, Est):
            value.variable = name
        if isinstance(value, Data) and isinstance(value.rows, Rows) and not value.rows.steps and caller_name(
                value.rows.root.name, name):  # X_val, y_val = load_part('val'): the helper's table is the val part
            self._caller_names.setdefault(value.rows.root.uid, name)  # (refits.py)
        if isinstance(value, Data) and not value.is_test and not has_split(value.rows) and vocab.looks_like_test(name) \
                and not any(p.steps and p.root in self._split_roots for p in parts(value.rows)) \
                and not (vocab.looks_like_validation(name) and is_training_part(value.rows)) and \
                not self._binds_a_mask(name, line) and not self._parameter_rows(name, line, value) and \
                not self._binds_one_sample(name, line) and not self._same_rows_running() and \
                (name, line) not in self._monitors and not (self._dev_training and only_dev(name)) and \
                not (isinstance(value.rows, Rows) and not value.rows.steps and vocab.looks_like_train(
                    value.rows.root.name)):  # valid = ~y.isna(): a mask (masks.py); feats_test = cv.fit_transform(
            # words_train): every row of a table named for training, named for testing by mistake, is not held out
            # (x_val = train_rows[-n:]: validation rows carved from a training part are not the test set; nor is
            # X_test_old = df[df.y == 1] after df was split: a subset of rows a split divided, named after the fact)
            value = value.with_(test=True)  # a split says what is held out; a name only where no split did
            if isinstance(value.rows, Rows) and not value.rows.steps:  # a whole table named for test: its rows are
                value = value.with_(rows=Rows(dataclasses.replace(value.rows.root, test=True)))
            self._reach(value, weak=True)  # rows set aside by name: they are meant to score a model
            # test = df[~mask]: rows selected on this very line and named for testing are held out
            self._test_parts.extend(p for p in parts(value.rows) if p.steps and p.steps[-1].line == line)
            self._check_test(value, line, "the variable name")
        return value

    def _same_rows_running(self) -> bool:
        """A call running now hands its helper one table as training and as held-out input (samerows.py)."""
        return bool(self._call_lines) and self._call_lines[-1] in self._same_rows

    def _parameter_rows(self, name: str, line: int, value: Data) -> bool:
        """``def encode(tr, col, te)`` called as ``encode(half_a, col, half_b)`` with two halves of the training
        rows (out-of-fold target encoding): a parameter's name states the helper's role, not that the caller's
        rows are held out, and neither does rebinding it in the helper (``te = te.merge(...)``). Rows passed in
        keep what the caller's data says (a split's test part, a test file, a held-out name at the call)."""
        return bool(parts(value.rows)) and any(p == name and start <= line <= end for p, start, end in self._parameters)

    def _attribute_value(self, base: Any, attr: str) -> Any:
        special = self._embedding_attribute(base, attr)
        if special is not None:
            return special
        if isinstance(base, Bound) and isinstance(base.receiver, (Data, MaybeData)):
            base = as_data(base)  # df.price.fillna(...): a column's methods act on the frame's rows
        if attr in ("iloc", "loc") and as_data(base) is not None:
            return Indexer(as_data(base))
        if attr in ("index", "columns") and isinstance(base, Data) and base.rows is None and base.taints:
            return base  # pd.Series(scores, index=X.columns).sort_values().index[-5:]: names a fit ranked
        if attr in ("shape", "columns", "dtypes", "index", "size", "ndim", "dtype"):
            return fold_positions(base) if attr == "index" else UNKNOWN  # a fold's row labels (foldcols.py)
        if attr in vocab.DATA_ATTRIBUTES and as_data(base) is not None:
            return as_data(base)  # X.values, X.T is not here: it turns rows into columns
        if (field := result_field(base, attr)) is not None:
            return field  # ttest_ind(a, b).pvalue: the p-value of a score (classtests.py)
        if attr == "T" and isinstance(base, Data):
            return self._turned(base)  # a fit on the rows turned into columns is per-row now (transposed.py)
        if isinstance(base, Container) and attr in ("items", "values") or isinstance(base, Tup) and attr in (
                "append", "extend"):
            return Bound(base, attr)  # methods.items(), xs.append(...): see EstimatorSemantics._method_value
        if isinstance(base, Est) and attr == "best_estimator_" and base.category == "search":
            # search.best_estimator_ is refitted on the rows the search saw (scikit-learn ``refit=True``)
            return Est(f"{base.cls}.best_estimator_", "model", fit=base.fit, variable=base.variable,
                       options={"search": base.uid})  # whose choice it is, whoever holds it later (searchfirst.py)
        if isinstance(base, Est) and attr == "labels_" and base.cls in vocab.CLUSTERERS and base.fit is not None:
            fit = base.fit  # km.fit(X).labels_: X's rows, each with the cluster id the fit gave it
            return Data(fit.rows, frozenset({fit}), False)
        if isinstance(base, Est) and attr in IMPORTANCES and self._importances(base) is not None:
            return self._importances(base)  # columns ranked by a model fitted on these rows carry its fit
        if isinstance(base, Est) and attr in vocab.SELECTION_ATTRIBUTES and attr.endswith("_"):
            return selection(base)
        if isinstance(base, (Est, Data, MaybeData, Indexer, PlExpr)):  # (PlExpr: polars_exprs.py)
            if isinstance(base, (Data, MaybeData)):
                self._note_column(base, attr)
            return Bound(base, attr)  # a method, or a column / a Bunch field (``ds.data``) when used as data
        return super()._attribute_value(base, attr)  # a mixin's objects (net.parameters: torchmodules.py)

    def _subscript_value(self, base: Any, index_node: ast.expr, frame: Frame, line: int) -> Any:
        special = self._special_subscript(base, index_node, frame)  # model.wv[word], np.c_[a, b], names[:5]
        if special is not None:
            return special
        data = base.data if isinstance(base, Indexer) else as_data(base)
        windowed = data is not None and id(index_node) in self._windows
        if windowed:
            self._note(data, "temporal", "sliding windows")  # s[i:i + n] for consecutive i (windows.py)
            self._window_lines.add(line)
        if data is None:
            index = maybe_data(self._expr(index_node, frame))
            # X.columns[rfe.support_]: the columns a fitted selector chose carry its fit
            return Data(None, index.taints) if index is not None and index.rows is None and index.taints else UNKNOWN
        chosen: frozenset = frozenset()
        spread = self._spread_fit(data, index_node, frame)  # X[X.columns[X.var() > t]] (spreadfilters.py)
        if spread is not None:
            return data.with_(taints=data.taints | {spread})
        if isinstance(index_node, ast.Tuple) and index_node.elts:
            for col in index_node.elts[1:]:  # X[:, skb.get_support()]: columns chosen by a fit
                spread = self._spread_fit(data, col, frame)  # X.loc[:, X.var() > t]: a variance filter
                if spread is not None:
                    chosen |= {spread}
                    continue
                value = self._expr(col, frame)  # X[:, [np.argmax(mi)]]: a list of positions a fit chose
                data = self._only_listed(data, value) if isinstance(base, Indexer) else data  # df.loc[:, names]
                picked = chosen_names(value, maybe_data) if isinstance(value, Tup) else maybe_data(value)
                chosen |= picked.taints if picked is not None and picked.rows is None else frozenset()
            index_node = index_node.elts[0]  # X[rows, columns]: the rows
        out = self._subscript_rows(data, index_node, frame, line)
        if windowed and isinstance(out, Data) and out.rows is not None and not any(
                step.line == line for p in parts(out.rows) for step in p.steps):
            # eeg[:, s:s + w]: a window of every channel, cut along the samples: a selection of the series made here
            out = out.with_(rows=data_rows_child(out, Step("filter", new_id(), line=line)))
        return out.with_(taints=out.taints | chosen) if chosen and isinstance(out, Data) else out

    def _kept_columns(self) -> frozenset[str]:
        """The column lists the module's objects keep on ``self`` (selfcolumns.py), read once."""
        if self._kept is None:
            self._kept = kept_column_lists(self.tree)
        return self._kept

    _kept: frozenset[str] | None = None

    def _spread_fit(self, data: Data, index_node: ast.expr, frame: Frame) -> FitRef | None:
        """The fit of a hand-written variance filter whose column index is ``index_node`` (spreadfilters.py)."""
        call = self._spread_filters.get(id(index_node))
        if call is None:
            return None
        est = Est(f"{ast.unparse(call.func)[:40]}() filter", "transformer", preprocessing=True)
        return self._fit(est, data, False, "filter", call, frame, handwritten=True)

    def _subscript_rows(self, data: Data, index_node: ast.expr, frame: Frame, line: int) -> Any:
        if id(index_node) in self._every_row:  # t['msg'][i] for i in range(len(t)): every row (loopitems.py)
            return data
        stacked = self._stack_part(data, index_node, frame)  # concat([train, test]).loc[test.index]: the test part
        if stacked is not None:
            return stacked
        if id(index_node) in self._periods:  # X['2018'] on a DatetimeIndex: X['2018':'2018'] (dateslices.py)
            key = self._bound(index_node, frame)
            return self._derive(data, data_rows_child(data, Step("slice", lo=key, hi=key, line=line)), line)
        if isinstance(index_node, ast.Slice):
            if index_node.lower is None and index_node.upper is None:
                return data
            lo, hi = self._bound(index_node.lower, frame), self._bound(index_node.upper, frame)
            if isinstance(data.rows, RowUnion) and len(data.rows.parts) > 1 and (lo in (None, 0)) != (hi is None) \
                    and not fraction_bound(index_node, self._bindings):  # all[int(.8 * len(all)):]: no seam (fractioncuts.py)
                # all = concat([train, test]); train = all[:n]; test = all[n:]: the parts come apart again
                rows = self._stack_cut(data.rows.parts, index_node, hi is not None, frame)  # frames.py
                return self._derive(data, rows, line)
            return self._derive(data, data_rows_child(data, Step("slice", lo=lo, hi=hi, line=line)), line)
        left_out = excluded_columns(index_node, self._bindings)  # features = [c for c in list(df) if c not in out]
        if left_out:
            return data.with_(taints=data.taints - self._dropped_fits(data, left_out))  # exclusions.py
        index = self._expr(index_node, frame)
        if isinstance(index, Tup) and all(_is_str(i) for i in index.items) or _is_str(index):
            for key in (index.items if isinstance(index, Tup) else (index,)):
                self._note_column(data, key.value)
            # a column, or columns (handpicked.py); the fits of the columns not listed stay behind (listedcols.py)
            return self._typed_choice(self._only_listed(self._only_own_column(data, index), index), index, index_node)
        picked = maybe_data(index) if not isinstance(index, Tup) else chosen_names(index, maybe_data)
        if picked is not None and picked.rows is None and picked.taints:
            # X[cols] with cols = X.columns[rfe.support_]: the columns a fit chose carry it; columns picked by a
            # statistic written by hand (min/max ranges choosing a dtype) are a choice, like a threshold (_compare)
            fits = frozenset(f for f in picked.taints if chooses(f))
            return data.with_(taints=data.taints | fits) if fits else data
        if isinstance(index, Drawn):  # data.iloc[np.random.choice(idx, n)]: a random subset, like df.sample(n)
            return self._derive(data, data_rows_child(data, Step("filter", new_id(), "sample", line=line)), line)
        if isinstance(index, FoldIdx):
            return self._derive(data, data_rows_child(data, Step("fold", index.loop, index.part, line=index.line)),
                                line)
        if maybe_data(index) is None and (names_columns(index_node, self._bindings) or reaches_columns(
                index_node, self._column_names) or formatted_text(index_node, self._bindings) or
                selects_kept_columns(index_node, self._kept_columns())):
            # df[predictors], predictors = list(set(df.columns) - {...}); df['var_%d' % i]; self.train[self.cols]
            return data  # (selfcolumns.py): columns
        if self._class_mask(index_node, line):  # X_all[y_all == 1]: one class's rows of every part (classfilters.py)
            return self._derive(data, data_rows_child(data, self._filter_step(index_node, line)), line)
        selector = as_data(index.items[0] if isinstance(index, Tup) and index.items else index)  # X[rows, :]
        if selector is not None:
            for p in parts(selector.rows):  # an index array from a split: take the same part of these rows
                chosen = next((s for s in reversed(p.steps) if s.kind in ("split", "fold")), None)
                if chosen is not None:
                    return self._derive(data, data_rows_child(data, chosen), line, taints=selector.taints)
        step = self._fold_column_step(index_node, line) or self._filter_step(index_node, line)  # foldcols, masks
        self._drawn_split_design(data, step, frame)  # keep = np.random.rand(n) < 0.8: a shuffled split (masks.py)
        # df[(df.x >= q1 - 1.5 * iqr) & ...]: the rows kept were chosen by statistics of the rows (outliers.py)
        # neg.iloc[np.argsort(-ocsvm.decision_function(X))[:k]]: rows kept by a detector's ranking of them (byuse.py)
        return self._derive(data, data_rows_child(data, step), line, taints=self._mask_bounds(index) | detector_choice(
            index))

    def _bind_item(self, target: ast.expr, owner: Any, value: Any, frame: Frame, line: int) -> None:
        """``df['col'] = ...`` / ``df.loc[:, c] = ...``: the frame now holds what shaped the new column (a single
        statistic broadcast to every row, ``df['baseline'] = df.price.mean()``, is a constant: it tells nothing)."""
        whole_column = isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) or (
            isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name)
            and isinstance(target.slice, ast.Constant) and isinstance(target.slice.value, str))
        self._note_unfollowed(target, frame)  # F[cols] = ...: no column read of F is narrowed (columnreads.py)
        if self._fill_fresh(target, owner, value, frame) or self._store_keyed(target, owner, value):
            return
        value = self._replaced_at_bounds(target, value, frame)  # df[c][df[c] > q] = v: the fence's fit (outliers.py)
        value = self._relabelled_members(target, value, frame)  # df.loc[df[c].isin(rare), c] = v (membership.py)
        if whole_column and isinstance(value, Data) and value.rows is None:
            return
        # df[col + '_low'] = ...: a column whose name the loop makes, known here (wave 72: dropped by exclusions.py)
        label = self._expr(target.slice, frame) if isinstance(target, ast.Subscript) and isinstance(
            target.value, ast.Name) and not whole_column else None
        named = isinstance(label, Const) and isinstance(label.value, str)
        before = maybe_data(self._lookup(target.value.id, frame)) if (whole_column or named) and isinstance(
            target.value, ast.Name) else None
        oof = filled_by_folds(self.tree, target, self._lookup(target.value.id, frame), maybe_data(value)) if \
            isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) else None
        if oof is not None:  # encoded = np.zeros(n); encoded[va] = ...: every fold written (oofarrays.py)
            self._store(target.value.id, oof, frame)
            return
        self._rebind_base(target.value, value, frame)
        if isinstance(target, ast.Subscript) and before is not None:
            self._record_column(before, label.value if named else target.slice.value, maybe_data(value))

    def _expr(self, node: ast.expr | None, frame: Frame) -> Any:
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Sub) and reflection(node):
            return self._expr(node.right, frame)  # x.max() - x: an inversion, not a statistic applied (see below)
        return super()._expr(node, frame)  # FrameSemantics first (list(A) + list(B))

    def _invoke(self, func: Any, args: list[Any], kwargs: dict[str, Any], line: int) -> Any:
        self._call_lines.append(line)
        self._enter_call(func, line)  # the files its path parameters hold (passedpaths.py)
        try:
            out = super()._invoke(func, args, kwargs, line)  # (mixins first: savehelpers.py)
        finally:
            self._call_lines.pop()
            self._leave_call()
        if is_generator(func.node):  # batches(X, 128): a generator yields batches of its arguments' rows
            rows = self._combine([a for a in [*args, *kwargs.values()] if maybe_data(a) is not None])
            return rows if rows is not UNKNOWN else out
        return out

    def _is_object(self, value: Any) -> bool:
        return isinstance(value, Est) or Interpreter._is_object(self, value)

    def _rebind_base(self, expr: ast.expr, value: Any, frame: Frame) -> None:
        new = maybe_data(value)
        if self._store_in_attribute(expr, new, frame):  # self.df[c] = ...: the frame the object keeps (aliases.py)
            return
        while isinstance(expr, (ast.Subscript, ast.Attribute)):
            expr = expr.value
        if new is None or not isinstance(expr, ast.Name):
            return
        held = self._lookup(expr.id, frame)
        current = maybe_data(held)
        if current is not None and current.rows is None and current.taints and new.rows is not None:
            # vectors['label'] = table['label']: a column set beside them aligns rows of unknown identity with it
            self._store(expr.id, current.with_(rows=new.rows, taints=current.taints | new.taints), frame)
            return
        if not new.taints:
            return
        if current is None and new.rows is None and isinstance(held, MaybeData):
            # guesses = np.zeros((2, 3)); guesses[i, j] = part['age'].median(): a table of statistics
            self._store(expr.id, new, frame)
        elif current is not None and not new.taints <= current.taints:
            updated = current.with_(taints=current.taints | new.taints)
            self._store(expr.id, updated, frame)
            self._rebind_aliases((held, current), updated, frame)  # the helper's argument is the module's frame

    def _unrolled(self, items: tuple[Any, ...]) -> bool:
        """A short literal list, or a list of candidate models up to 16 (modellists.py), runs the body per item."""
        return super()._unrolled(items) or model_list(items)

    def _iterate(self, source: Any, node: ast.For, frame: Frame) -> bool:
        inner = getattr(source, "inner", source)
        named = not isinstance(inner, FoldIter) and named_fold_loop(node)  # for tr, te in cv: handed-over folds
        if isinstance(inner, Est) and inner.category == "splitter" or named:
            inner = FoldIter(new_id(), node.lineno, None)  # old scikit-learn: ``for tr, te in KFold(n, k)``
        if not isinstance(inner, FoldIter):
            if self._group_items(source, node, frame):  # for key, part in table.groupby(k) (groupitems.py)
                return True
            item = self._row_items(source, node, frame) if isinstance(node.target, ast.Name) else None
            if item is None:
                if self._statistic_items(source, node, frame):  # for ct in tables: appended statistics (statlists.py)
                    return True
                return self._column_items(node, frame)  # for col, values in table.items() (columnitems.py)
            self._run_row_loop(node, item, frame)  # for text in table['msg']: one row a pass (loopitems.py)
            return True
        pair = Tup((FoldIdx(inner.loop, "train", node.lineno), FoldIdx(inner.loop, "test", node.lineno)))
        counted = enumerated_pair(node) if named else inner is not source and not isinstance(source, Est)
        self._bind(node.target, Tup((MaybeData("i", node.lineno), pair)) if counted else pair, frame, node.lineno)
        frame.loops.append((inner.loop, node.lineno))
        try:
            self._block(node.body, frame)
        finally:
            frame.loops.pop()
        return True

    def _class_value(self, cls: Any) -> Any:
        """A user-defined transformer (a scikit-learn transformer mixin among its bases, or ``fit`` and
        ``transform``) or model (a classifier/regressor mixin, or ``fit`` and ``predict``/``predict_proba``:
        the scikit-learn estimator contract a hand-written network or booster wrapper follows) is an estimator;
        any other class gives an instance (a mixin's answer first: a Keras subclass, kerasmodels.py)."""
        special = super()._class_value(cls)
        if special is not None:
            return special
        transformer = bool(TRANSFORMER_BASES & cls.bases) or {"fit", "transform"} <= set(cls.methods)
        if transformer:  # (a transform returning the rows and the labels: pairreturns.py)
            return Est(cls.node.name, "transformer", preprocessing=True, options={TUPLE_RETURNS: tuple_roles(cls.methods)})
        if MODEL_BASES & cls.bases or "fit" in cls.methods and {"predict", "predict_proba"} & set(cls.methods):
            return Est(cls.node.name, "model", supervised=True)
        return None

    def _opaque(self, name: str, line: int) -> MaybeData:
        value = MaybeData(name, line)
        value.training_named = self._dev_training and only_dev(name)  # x_dev beside a lockbox (devparts.py)
        return value

    def _may_become_container(self, owner: Any) -> bool:
        # (a table read from a file stays a table when a column is set: ``train['source'] = 'train'``)
        return owner is UNKNOWN or isinstance(owner, MaybeData) and not owner.used_as_data and not owner.from_file \
            and not still_empty(owner)  # (feat = pd.DataFrame(); feat['a'] = ...: a column, fresh.py)

    def _bound(self, node: ast.expr | None, frame: Frame) -> Any:
        if node is None:
            return None
        value = self._expr(node, frame)
        if getattr(value, "value", None).__class__ is int:
            return value.value
        return ast.unparse(node)

    def _derive(self, data: Data, rows: Any, line: int, *, taints: frozenset = frozenset()) -> Data:
        out = Data(rows, data.taints | taints, data.test)
        self._check_test(out, line, "a row selection")
        return out

    def _combine(self, values: list[Any]) -> Any:
        datas = [d for d in (maybe_data(v) for v in values) if d is not None]
        if not datas:
            return combined_expr(values) or UNKNOWN  # pl.col('a').median() + pl.col('b').median() (polars_exprs.py)
        first = next((d for d in datas if d.rows is not None), datas[0])
        return self._masks_joined(values, Data(first.rows, frozenset().union(*(d.taints for d in datas)), first.test))

    def _join(self, a: Any, b: Any) -> Any:
        da, db = maybe_data(a), maybe_data(b)
        if da is not None and db is not None:  # either branch's fits may have shaped it
            first = da if da.rows is not None else db
            kind = Blocks if isinstance(a, Blocks) and isinstance(b, Blocks) else Data  # a list of blocks either way
            return kind(first.rows, da.taints | db.taints, da.test or db.test)
        if (both := joined_blocks(a, b)) is not None:  # appended to in one branch only (blocks.py)
            return both
        if da is not None and empty_list(b) or db is not None and empty_list(a):
            return a if da is not None else b  # blocks = [] then `if cond: blocks.append(X)`: it may hold X's rows
        if (kept := kept_names_joined(a, b)) is not None:  # names a selection chose, in one branch (keptnames.py)
            return kept
        return Interpreter._join(self, a, b)

    def _compare(self, values: list[Any]) -> Any:
        """``price >= price.mean()``: a threshold makes a label or a mask, not a feature computed from test rows."""
        out = self._combine(values)
        if isinstance(out, PlExpr):  # pl.col('x') > pl.col('x').mean(): a mask at a statistic, as for pandas
            return PlExpr(None)
        if isinstance(out, Data) and any(f.handwritten or is_detector_fit(f) for f in out.taints):
            # (an outlier detector's inlier flags compared make a row mask too: byuse.py)
            kept = frozenset(f for f in out.taints if not f.handwritten and not is_detector_fit(f))
            out = self._mask_cut_at(out.with_(taints=kept), out.taints - kept)  # a row mask's bounds (outliers.py)
        return out

    # ------------------------------------------------------------------ results

    def _reach(self, *values: Any, weak: bool = False) -> None:
        """``values`` reach a model (fitted, scored, cross-validated), a split, or are saved: their fits matter.
        ``weak``: only set aside under a held-out name (enough for an estimator's fit, not for a statistic)."""
        reached = self._reached_weak if weak else self._reached
        uids = self.__dict__.setdefault("_reached_uids", set())  # which call of a fit site it was (_finalize)
        for value in values:
            data = maybe_data(value.receiver if isinstance(value, Bound) else value)
            if isinstance(value, Est):
                reached.update((e.fit.line, e.fit.column) for e in [value, *value.steps] if e.fit)
                uids.update(e.fit.uid for e in [value, *value.steps] if e.fit and not weak)
            elif isinstance(value, Tup):
                self._reach(*value.items, weak=weak)
            elif data is not None:
                reached.update((f.line, f.column) for f in data.taints)
                uids.update(f.uid for f in data.taints if not weak)

    def _finalize(self) -> None:
        """One finding per fit, its most specific kind; ``info`` when its output reached no model."""
        by_site: dict[tuple[int, int], list[dict[str, Any]]] = {}
        # fed a clustering whose ids matter; split by train_test_split where the file evaluates (unscored.py)
        self._reached = self._through_clusterings(self._reached | self._split_reaches())
        starts = statement_starts(self.tree)
        quiet = self.__dict__.get("_quiet_fits", ())  # a lasting entity's own rows: only handed on (design.py)
        for p in self._pending + self._shown_only_pending():  # hand-written in one statement: one fit (min-max)
            fit = p["fit"]
            if fit.uid in quiet:
                continue
            by_site.setdefault(starts.get(fit.line, (fit.line, fit.column)) + (-1,) if fit.handwritten else (
                fit.line, fit.column), []).append(p)
        uids = self.__dict__.get("_reached_uids", set())
        for site, found in by_site.items():
            # a helper run on several tables (the training file, then the test file) whose tables went to files the
            # joined readers read: the kind of the calls whose output reached something, not of a call on other
            # tables whose file the readers left unused (savedreach.py)
            live = [p for p in found if p["fit"].uid in uids]
            tables = {r for p in live for r in _fit_roots(p["fit"])}
            found = [p for p in found if p in live or not self._handed(p["fit"]) or not _fit_roots(p["fit"]) or
                     _fit_roots(p["fit"]) & tables] if live else found
            # (a fit seen only by a training file's validation rows ranks after fit_outside_cv: validation.py)
            found.sort(key=kind_rank(found))  # (a model's trained_on_test ahead of its fit_before_split: modelkinds.py)
            best, fit = found[0], found[0]["fit"]
            sites = {(p["fit"].line, p["fit"].column) for p in found}
            saved = any(self._saved(p["fit"]) for p in found)  # a call of it saved to a file (savedreach.py)
            only_saved = saved and not sites & self._reached
            reached = (bool(sites & self._reached) or saved or not self.report.complete or (bool(
                sites & self._reached_weak) and not fit.handwritten and not picture_embedding(fit.estimator))) and not all(
                p.get("shown") or before_training_only_split(p["kind"], p["line"], self.tree)
                or before_dead_split(p["kind"], p["line"], self.tree) for p in found)  # (unscored.py)
            if len(site) == 3:  # reported where the statement starts
                best = {**best, "fit": dataclasses.replace(fit, line=site[0], column=site[1])}
            if not reached and fit.handwritten:
                continue  # a statistic printed, plotted or used in a metric, never used to train or score
            also = sorted({p["kind"] for p in found[1:]} - {best["kind"]})
            self.report.findings.append(self._finding(best, reached, also))
            if only_saved and self.report.complete:
                at = self.report.findings[-1].location
                self.report.saved_only.add((at.get("file", self.smap.file), at.get("index", 0), at["line"]))


def _fit_roots(fit: FitRef) -> frozenset:
    """The tables (root ids) a fit's rows come from; empty when unknown."""
    return frozenset(p.root.uid for p in parts(fit.rows)) if fit.rows is not None else frozenset()


def _is_str(value: Any) -> bool:
    return getattr(value, "value", None).__class__ is str


__all__ = ["Analyzer", "FitSite", "StaticReport", "is_test_rows", "Rows"]
