"""Join keys as comparable strings, and the normalisations that make two sources' ids meet.

Two sources often write the same id differently: ``42`` (int) and ``"42"`` (string), ``"000042"``
(zero-padded), ``" 42 "`` (whitespace), ``"ab12"`` and ``"AB12"`` (case). pandas refuses to merge an
int column with a string one and matches nothing across the others. :func:`normalise_keys` applies
named steps, in this order, all vectorised:

- ``to_string``: every value as text; integers and integral floats as plain integers (``42.0`` -> ``"42"``);
- ``strip_whitespace``: leading and trailing whitespace removed;
- ``casefold``: case folded (``str.casefold``: ``"AB12"`` -> ``"ab12"``);
- ``strip_leading_zeros``: the zero padding of all-digit ids removed (``"000042"`` -> ``"42"``, ``"000"`` -> ``"0"``).

``faultlib check align`` reports which steps two key columns need and how many rows match after each.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

from faultlib.errors import DetectorError

if TYPE_CHECKING:
    import pandas

STEPS = ("to_string", "strip_whitespace", "casefold", "strip_leading_zeros")
PANDAS = {
    "to_string": "faultlib.remedies.key_strings(col)  # ints and integral floats as plain integers",
    "strip_whitespace": "col.str.strip()",
    "casefold": "col.str.casefold()",
    "strip_leading_zeros": "col.mask(col.str.isdigit(), col.str.lstrip('0').replace('', '0'))",
}


def dtype_class(series: "pandas.Series") -> str:
    """``numeric``, ``string``, ``bool``, ``datetime`` or ``mixed`` (an object column of several kinds)."""
    import pandas as pd

    kind = pd.api.types
    if kind.is_bool_dtype(series.dtype):
        return "bool"
    if kind.is_numeric_dtype(series.dtype):
        return "numeric"
    if kind.is_datetime64_any_dtype(series.dtype):
        return "datetime"
    if kind.is_string_dtype(series.dtype) and not kind.is_object_dtype(series.dtype):
        return "string"
    inferred = pd.api.types.infer_dtype(series, skipna=True)
    if inferred in ("string", "empty"):
        return "string"
    if inferred in ("integer", "floating", "mixed-integer-float", "decimal"):
        return "numeric"
    return "mixed" if inferred.startswith("mixed") else inferred


def key_strings(series: "pandas.Series") -> "pandas.Series":
    """Every key as text, integers and integral floats written as plain integers.

    Args:
        series: one key column of any dtype (ints, floats, strings, an object column mixing them).

    Returns:
        A string Series with the same index. Missing values stay missing.
    """
    import numpy as np
    import pandas as pd

    kind = pd.api.types
    if kind.is_integer_dtype(series.dtype) or kind.is_bool_dtype(series.dtype):
        return series.astype("string")
    if kind.is_float_dtype(series.dtype):
        out = series.astype("string")
        integral = series.notna() & np.isfinite(series) & (series % 1 == 0)
        out[integral] = series[integral].astype("int64").astype("string")
        return out
    if kind.is_datetime64_any_dtype(series.dtype):
        return series.astype("string")
    values = series.to_numpy(dtype=object)
    text = series.astype("string")
    present = series.notna().to_numpy(dtype=bool)
    was_text = np.zeros(len(values), dtype=bool)   # str values compare equal to themselves (NA compares to NA)
    was_text[present] = np.asarray(text.to_numpy(dtype=object)[present] == values[present], dtype=bool)
    numbers = pd.to_numeric(series.where(~was_text), errors="coerce")
    integral = numbers.notna() & np.isfinite(numbers) & (numbers % 1 == 0)
    if integral.any():
        text[integral] = numbers[integral].astype("int64").astype("string")
    return text


def normalise_keys(series: "pandas.Series", steps: Iterable[str] = STEPS) -> "pandas.Series":
    """Apply normalisation steps (see the module docstring) to one key column.

    Args:
        series: the key column.
        steps: names from :data:`STEPS`; applied in :data:`STEPS` order whatever order they come in.
            ``to_string`` is implied (the result is always text).

    Returns:
        A string Series with the same index.

    Raises:
        DetectorError: an unknown step name.
    """
    chosen = set(steps)
    unknown = chosen - set(STEPS)
    if unknown:
        raise DetectorError(f"unknown key normalisation {sorted(unknown)}; choose from {', '.join(STEPS)}")
    out = key_strings(series)
    if "strip_whitespace" in chosen:
        out = out.str.strip()
    if "casefold" in chosen:
        out = out.str.casefold()
    if "strip_leading_zeros" in chosen:
        digits = out.str.isdigit().fillna(False).astype(bool)
        stripped = out.str.lstrip("0")
        out = out.mask(digits, stripped.mask(stripped == "", "0"))
    return out
