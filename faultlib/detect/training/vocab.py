"""What ``check resume`` recognises in a training script: the kinds it reports, the calls that create
stateful objects (optimizers, LR schedulers, GradScalers, EMA, generators), that save and load checkpoints,
that draw from and seed the global RNGs, and why each object's loss matters after a resume.

Names are matched on the call's dotted name (``torch.optim.AdamW``) or its last identifier (``AdamW``).
"""

from __future__ import annotations

import re

from faultlib.findings import Severity

DETECTOR = "resume"
KINDS = {
    "state_not_saved": "a stateful object the training loop uses is in no checkpoint the script writes: a resumed "
                       "run restarts it (lr warm-up again, loss scale 65536, fresh moments, data order from the start)",
    "state_not_restored": "a checkpoint holds the object's state but the resume path never loads it back",
    "restored_before_created": "state restored and then reset: the object is created again after its restore, or "
                               "a scheduler is created after its optimizer's state was loaded and never restored "
                               "(it starts its schedule over on the resumed optimizer)",
    "no_resume_path": "the script writes training checkpoints (optimizer or counters) but nothing loads them back",
    "checkpoint_lacks_state": "a checkpoint file holds no state of an object the loop uses (checked against the "
                              "file itself, read with weights_only=True)",
}

OPTIMIZERS = re.compile(r"^(SGD|ASGD|Adam\w*|NAdam|RAdam|Adagrad|Adadelta|Adamax|RMSprop|Rprop|LBFGS|SparseAdam|"
                        r"Lion|Lamb|LAMB|LARS|Adafactor|Muon|Shampoo|\w*Optimizer|(create|build|get|make|configure)_optim\w*)$")
SCHEDULERS = re.compile(r"^(\w*LR|\w*Scheduler\w*|\w*_scheduler|get_\w*schedule\w*|\w*Warmup\w*|"
                        r"(create|build|get|make)_(lr_)?sched\w*)$")
SCALERS = {"GradScaler", "ShardedGradScaler"}
EMAS = re.compile(r"^(ModelEma\w*|\w*EMA\w*|\w*Ema|ExponentialMovingAverage|AveragedModel)$")
GENERATORS = {"torch.Generator", "numpy.random.default_rng", "numpy.random.RandomState", "random.Random"}
COUNTER = re.compile(r"^(?!local_)((\w+_)?(epoch|step|iter|iteration|update)(s|_num|_idx|_count)?|ep|e|it|itr|"
                     r"gstep|n_iter|num_updates)$")
STEPPED = {"step", "update", "scale", "set_epoch", "update_parameters", "apply_shadow", "zero_grad"}

SAVE_HELPERS = re.compile(r"^save_on_master$|^save\w*_(checkpoint|ckpt|model|state|state_dict)$")
"""Checkpoint helpers defined in other files (``utils.save_on_master(dict, path)``, ``misc.save_model(model=...,
optimizer=...)``): everything passed to them is saved."""
LOAD_HELPERS = re.compile(r"^(?=\w*(load|resume|restore|restart))(?=\w*(checkpoint|ckpt|state|model|resume|ema))\w+$")
"""Restore helpers defined in other files (``utils.restart_from_checkpoint(path, optimizer=...)``,
``smart_resume(ckpt, optimizer, ema)``, ``misc.load_model(optimizer=...)``): every object passed to them is restored."""
SAVE_CALLS = {"torch.save": 0, "safetensors.torch.save_file": 0, "save_file": 0, "xm.save": 0,
              "torch.distributed.checkpoint.save": 0, "dcp.save": 0, "torch_xla.core.xla_model.save": 0}
LOAD_CALLS = {"torch.load", "safetensors.torch.load_file", "load_file", "torch.distributed.checkpoint.load",
              "dcp.load"}
RNG_GET = {"get_rng_state": "rng_torch", "get_rng_state_all": "rng_cuda", "getstate": "rng_python",
           "get_state": "rng_numpy"}
RNG_SET = {"set_rng_state": "rng_torch", "set_rng_state_all": "rng_cuda", "setstate": "rng_python",
           "set_state": "rng_numpy"}
RNG_DRAWS = {
    "rng_torch": re.compile(r"^torch\.(rand\w*|randperm|normal|bernoulli|multinomial|utils\.data\.random_split)$"
                            r"|(^|\.)(RandomSampler|Dropout\w*|random_split|Random\w+)$"),
    "rng_numpy": re.compile(r"^numpy\.random\.(?!seed$|get_state$|set_state$|default_rng$|RandomState$)\w+$"),
    "rng_python": re.compile(r"^random\.(random|randint|choice|choices|shuffle|sample|uniform|gauss|randrange)$"),
}
SEEDS = {"rng_torch": ("torch.manual_seed", "torch.random.manual_seed", "torch.seed"),
         "rng_numpy": ("numpy.random.seed",), "rng_python": ("random.seed",),
         "rng_cuda": ("torch.cuda.manual_seed", "torch.cuda.manual_seed_all")}
SEVERITY = {"rng_torch": Severity.INFO, "rng_numpy": Severity.INFO, "rng_python": Severity.INFO,
            "rng_cuda": Severity.INFO}
WHY = {"optimizer": "its moments and step counts restart from zero",
       "scheduler": "the learning rate restarts its schedule (warm-up again, no decay so far)",
       "grad_scaler": "the loss scale restarts at its initial value (65536): the first resumed steps overflow "
                      "and are skipped",
       "ema": "the EMA weights restart from the current weights",
       "model": "the weights restart from their initialisation",
       "generator": "its random stream restarts (data order or augmentation differs from the straight run)",
       "counter": "the loop restarts from 0 (and sampler.set_epoch repeats the first epochs' order)",
       "rng_torch": "torch's global RNG restarts: data order, dropout masks and augmentation differ",
       "rng_numpy": "NumPy's global RNG restarts: its draws differ from the straight run",
       "rng_python": "Python's random restarts: its draws differ from the straight run",
       "rng_cuda": "the CUDA RNGs restart: dropout masks on the GPU differ"}
