"""The release's context (the policy's ``context:`` block) and the re-identification risk threshold it implies.

A risk threshold is not a property of the data: it follows from how the data are released and to whom
(ISO/IEC 27559:2022, 6.3 and 6.4: the context -- release model, recipient, controls -- sets what risk is
acceptable, and a public release is judged by the maximum risk, a controlled one by the average risk).
privaudit derives the threshold with El Emam's method:

* K. El Emam, *Guide to the De-Identification of Personal Health Information*, CRC Press 2013, ch. 5
  ("Setting the threshold": thresholds by the invasion of privacy; public release assessed on the maximum
  risk) and ch. 6 (the probability of an attempt from the recipient's motives and capacity and the
  mitigating controls; non-public release assessed on the average risk);
* K. El Emam and L. Arbuckle, *Anonymizing Health Data*, O'Reilly 2013, ch. 2 (the same method; the
  precedents 0.05, 0.075, 0.09/0.1 and 0.2 are the cell-size rules 20, 13, 11 and 5);
* as applied by EMA Policy 0070 (*External guidance on the implementation of the European Medicines
  Agency policy on the publication of clinical data*, 2018, section 4.2.3: 0.09 the threshold commonly
  used for public clinical reports) and Health Canada PRCI (*Guidance document on public release of
  clinical information*, 2019, section 5.3.2: 0.09 for public release).

privaudit's table (:func:`derive_threshold`; ``docs/determination.md`` lists every combination):

* ``public_use`` and ``synthetic`` (the release leaves the custodian's control; synthetic data are judged as
  a public release unless a contract covers them): the maximum risk, by the invasion of privacy only
  (El Emam 2013 ch. 5): low 0.09, medium 0.075, high 0.05; controls and motives do not count, since no
  control binds an unknown recipient.
* ``scientific_use`` (a contract with a named recipient) and ``secure_enclave``: the average risk, starting
  from the controls in place (``security``, ``contract``, ``audit``; a secure enclave brings ``security``
  and ``audit`` itself): all three 0.2, two 0.09, fewer 0.075; one step lower on the ladder
  0.2 > 0.09 > 0.075 > 0.05 when the invasion of privacy is high, and one more when the recipient's motives
  and capacity are high (El Emam 2013 ch. 6: higher motives and capacity, weaker controls and a more
  invasive release each raise the probability of an attempt, so the data must carry less risk).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

ReleaseModel = Literal["public_use", "scientific_use", "secure_enclave", "synthetic"]
Level = Literal["low", "medium", "high"]
Control = Literal["security", "contract", "audit"]
Measure = Literal["maximum", "average"]

#: El Emam's thresholds, from the most to the least permissive (cell sizes 5, 11, 13, 20)
LADDER = (0.2, 0.09, 0.075, 0.05)
#: public release: maximum risk by the invasion of privacy (El Emam 2013 ch. 5; 0.09 after EMA and Health Canada)
PUBLIC = {"low": 0.09, "medium": 0.075, "high": 0.05}
#: what a secure enclave itself brings (its own security and access logs)
ENCLAVE_CONTROLS = frozenset({"security", "audit"})
SOURCE = (
    "K. El Emam, Guide to the De-Identification of Personal Health Information (CRC 2013), ch. 5-6; "
    "K. El Emam & L. Arbuckle, Anonymizing Health Data (O'Reilly 2013), ch. 2; as applied by EMA Policy 0070 "
    "external guidance (2018) 4.2.3 and Health Canada PRCI guidance (2019) 5.3.2"
)
RELEASE_WORDS = {
    "public_use": "public use file (open release)",
    "scientific_use": "scientific use file under contract",
    "secure_enclave": "secure enclave (remote or on-site access)",
    "synthetic": "synthetic data (released as a public file)",
}


class ReleaseContextSpec(BaseModel):
    """The policy's ``context:`` block: who gets the release, how, under which controls."""

    model_config = ConfigDict(extra="forbid")
    release_model: ReleaseModel = Field(
        description="public_use, scientific_use (contract), secure_enclave or synthetic (ISO/IEC 27559 release models)."
    )
    recipient: str | None = Field(default=None, min_length=1, description="Who receives the release.")
    controls: list[Control] = Field(
        default_factory=list,
        description="Controls in place: security, contract, audit (El Emam's mitigating controls).",
    )
    invasion_of_privacy: Level = Field(
        default="high", description="How sensitive the data are: low, medium, high (El Emam's invasion of privacy)."
    )
    motives_capacity: Level = Field(
        default="high", description="The recipient's motives and capacity to re-identify: low, medium, high."
    )
    threshold: float | None = Field(
        default=None,
        gt=0,
        le=1,
        allow_inf_nan=False,
        description="A threshold the policy sets itself; the determination says whether the context supports it.",
    )
    signer: str | None = Field(default=None, min_length=1, description="Who signs the determination.")
    role: str | None = Field(default=None, min_length=1, description="The signer's role.")
    conditions: list[str] = Field(default_factory=list, description="Conditions of the release, one per item.")
    review_date: str | None = Field(default=None, description="When the determination is reviewed (YYYY-MM-DD).")

    @field_validator("controls")
    @classmethod
    def _once(cls, v: list[str]) -> list[str]:
        if len(set(v)) != len(v):
            raise ValueError("a control is listed twice")
        return v

    @field_validator("review_date", mode="before")
    @classmethod
    def _date(cls, v: Any) -> str | None:
        import datetime

        if isinstance(v, datetime.date) and not isinstance(v, datetime.datetime):
            return v.isoformat()
        if v is not None:
            try:
                datetime.date.fromisoformat(str(v))
            except ValueError:
                raise ValueError(f"expected an ISO date (YYYY-MM-DD), got {v!r}") from None
        return None if v is None else str(v)


@dataclass(frozen=True)
class DerivedThreshold:
    """The threshold a context implies, the measure it applies to, and why (one sentence per step)."""

    value: float
    measure: Measure
    steps: tuple[str, ...]
    source: str = SOURCE

    def to_dict(self) -> dict[str, Any]:
        return {"value": self.value, "measure": self.measure, "steps": list(self.steps), "source": self.source}


def derive_threshold(spec: ReleaseContextSpec) -> DerivedThreshold:
    """The risk threshold and measure of ``spec`` by privaudit's reading of El Emam's table (module docstring)."""
    model = spec.release_model
    if model in ("public_use", "synthetic"):
        value = PUBLIC[spec.invasion_of_privacy]
        return DerivedThreshold(
            value,
            "maximum",
            (
                f"{RELEASE_WORDS[model]}: no control binds the recipient, so the maximum risk is assessed "
                "(ISO/IEC 27559 6.4; El Emam 2013 ch. 5)",
                f"invasion of privacy {spec.invasion_of_privacy}: threshold {value:g}",
            ),
        )
    controls = set(spec.controls) | (ENCLAVE_CONTROLS if model == "secure_enclave" else set())
    step = 0 if len(controls) == 3 else 1 if len(controls) == 2 else 2
    named = ", ".join(sorted(controls)) or "none"
    steps = [
        f"{RELEASE_WORDS[model]}: the recipient is bound, so the average risk is assessed (El Emam 2013 ch. 6)",
        f"controls in place ({named}): {LADDER[step]:g}",
    ]
    for what, level in (
        ("invasion of privacy", spec.invasion_of_privacy),
        ("motives and capacity", spec.motives_capacity),
    ):
        if level == "high":
            step = min(step + 1, len(LADDER) - 1)
            steps.append(f"{what} high: one step lower, {LADDER[step]:g}")
    return DerivedThreshold(LADDER[step], "average", tuple(steps))


@dataclass(frozen=True)
class ContextThreshold:
    """What an assessor declares so that the context's threshold reaches its checks: the parameter holding
    the bound (``value``), the one choosing the measure (``measure``, optional) and which of its measures are
    the maximum and the average risk. A check that leaves the bound out gets the derived one; one that
    sets it is judged against it (:func:`judge`)."""

    value: str
    measure: str | None = None
    measures: dict[str, str] = field(default_factory=dict)


def fill_params(params: dict[str, Any], binding: ContextThreshold, derived: DerivedThreshold) -> dict[str, Any]:
    """``params`` with the derived threshold and measure where the check leaves them out."""
    out = dict(params)
    out.setdefault(binding.value, derived.value)
    if binding.measure is not None and derived.measure in binding.measures:
        out.setdefault(binding.measure, binding.measures[derived.measure])
    return out


def judge(
    check_id: str, params: dict[str, Any], validated: Any, binding: ContextThreshold, derived: DerivedThreshold
) -> dict[str, Any]:
    """Whether the context supports one check's bound: its value at most the derived threshold, on the
    measure the release model asks for (a maximum-risk bound is stricter than the same average bound, so
    it supports an average-risk context too)."""
    value = float(getattr(validated, binding.value))
    measure = getattr(validated, binding.measure) if binding.measure else None
    kind = next((k for k, v in binding.measures.items() if v == measure), None)
    problems = []
    if value > derived.value:
        problems.append(f"{value:g} is above the context's threshold {derived.value:g}")
    if derived.measure == "maximum" and kind != "maximum":
        problems.append(f"the release model asks for the maximum risk, the check bounds {measure or 'another figure'}")
    return {
        "check": check_id,
        "value": value,
        "measure": kind or measure,
        "derived": binding.value not in params,
        "supported": not problems,
        "note": "; ".join(problems) or f"within the context's threshold {derived.value:g} ({derived.measure} risk)",
    }


def judge_threshold(given: float, derived: DerivedThreshold) -> dict[str, Any]:
    """Whether the context supports the threshold the policy's ``context.threshold`` states."""
    supported = given <= derived.value
    return {
        "check": "context.threshold",
        "value": given,
        "measure": derived.measure,
        "derived": False,
        "supported": supported,
        "note": f"within the context's threshold {derived.value:g}"
        if supported
        else f"{given:g} is above the context's threshold {derived.value:g}: the context does not support it",
    }
