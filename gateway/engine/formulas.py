"""tabulate's `compute` formulas: arithmetic over named values, parsed into a tree.

A formula is read by Python's own parser (`ast`, expression mode) and kept only if every
node is a number, a name, `+ - * /`, or a unary sign: anything else (calls, attributes,
strings, comparisons) is refused. SPARQL is then written from the tree, never from the
caller's text, so a formula cannot smuggle query text.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Callable
from dataclasses import dataclass

from gateway.errors import InvalidInput
from gateway.sparql import Sparql, literal

MAX_NODES = 200
"""A formula's size (numbers, names and operators together)."""

_OPERATORS: dict[type[ast.operator], str] = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/"}


@dataclass(frozen=True)
class Number:
    value: int | float


@dataclass(frozen=True)
class Name:
    name: str


@dataclass(frozen=True)
class Negated:
    operand: Formula


@dataclass(frozen=True)
class Operation:
    op: str
    left: Formula
    right: Formula


Formula = Number | Name | Negated | Operation


def parse(text: str, field: str) -> Formula:
    """The tree of a formula such as `w * d * h` or `(price - cost) / price * 100`."""
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        raise InvalidInput(f"{field}: not a formula (numbers, column names, + - * / and parentheses)",
                           field=field) from None
    if sum(1 for _ in ast.walk(tree)) > MAX_NODES:
        raise InvalidInput(f"{field}: a formula of at most {MAX_NODES} parts", field=field)
    return _convert(tree.body, field)


def _convert(node: ast.expr, field: str) -> Formula:
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        if not math.isfinite(node.value):
            raise InvalidInput(f"{field}: {node.value!r} is not a finite number", field=field)
        return Number(node.value)
    if isinstance(node, ast.Name):
        return Name(node.id)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        operand = _convert(node.operand, field)
        return Negated(operand) if isinstance(node.op, ast.USub) else operand
    if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
        return Operation(_OPERATORS[type(node.op)], _convert(node.left, field), _convert(node.right, field))
    shown = ast.unparse(node)
    raise InvalidInput(f"{field}: {shown[:60]!r} is not allowed in a formula (numbers, column names, "
                       "+ - * / and parentheses only)", field=field)


def names(formula: Formula) -> list[str]:
    """The names a formula reads, in order of first use."""
    if isinstance(formula, Name):
        return [formula.name]
    if isinstance(formula, Negated):
        return names(formula.operand)
    if isinstance(formula, Operation):
        return list(dict.fromkeys(names(formula.left) + names(formula.right)))
    return []


def render(formula: Formula, value_of: Callable[[str], Sparql]) -> Sparql:
    """The formula in SPARQL, each name written by `value_of` (a variable)."""
    if isinstance(formula, Number):
        return literal(formula.value)
    if isinstance(formula, Name):
        return value_of(formula.name)
    if isinstance(formula, Negated):
        return Sparql(f"(-{render(formula.operand, value_of)})")
    left, right = render(formula.left, value_of), render(formula.right, value_of)
    if formula.op == "/":  # a decimal quotient of integers on every store (Virtuoso's is an integer)
        return Sparql(f"({left} * 1.0 / {right})")
    return Sparql(f"({left} {formula.op} {right})")
