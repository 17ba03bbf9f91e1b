"""Every wire model matches the service's generated OpenAPI: same wire field
names, same required set. Fields we add on purpose are listed here, by name."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import BaseModel

from lumente_cli.agent_memory import wire

# The service's generated OpenAPI, kept in the repository so this check always runs.
SPEC = Path(__file__).resolve().parents[2] / "docs" / "spec" / "spectron-enduser.openapi.json"


def _spec() -> dict:
    return json.loads(SPEC.read_text())


# model -> (schema name, extra optional wire fields we add, required fields we relax)
RESPONSES: dict[type[BaseModel], tuple[str, set[str], set[str]]] = {
    wire.FactsResponse: ("FactsResponseJson", set(), set()),
    wire.ExtractionResult: ("ExtractionResultJson", set(), set()),
    wire.EntitySummary: ("EntitySummaryJson", set(), set()),
    wire.AttributeSummary: ("AttributeSummaryJson", set(), set()),
    wire.RelationSummary: ("RelationSummaryJson", set(), set()),
    wire.InstructionSummary: ("InstructionSummaryJson", set(), set()),
    wire.UncertaintySummary: ("UncertaintySummaryJson", set(), set()),
    wire.CorrectionSummary: ("CorrectionSummaryJson", set(), set()),
    # `source` is the provenance object of contract §10 (docs only, not in the OpenAPI).
    wire.AttributeDetail: ("AttributeDetailJson", {"source"}, set()),
    wire.EntityDetail: ("EntityDetailJson", set(), set()),
    wire.RelationDetail: ("RelationDetailJson", set(), set()),
    wire.EntityResponse: ("EntityResponseJson", set(), set()),
    wire.EntityListResponse: ("EntityListResponseJson", set(), set()),
    wire.EntityHistoryResponse: ("EntityHistoryResponseJson", set(), set()),
    wire.ScopeNode: ("ScopeNodeJson", set(), set()),
    wire.ForgetScopeResponse: ("ForgetScopeResponseJson", set(), set()),
    wire.MintedKey: ("MintedKeyJson", set(), set()),
    wire.KeyDetail: ("KeyDetailJson", set(), set()),
    wire.Whoami: ("WhoamiJson", set(), set()),
    # The docs' RFC 7807 shape has no `message`, so ApiError takes both shapes:
    # every field optional, plus the RFC 7807 fields and the `error` some clients read.
    wire.ApiError: ("ApiErrorResponse", {"type", "title", "status", "detail", "instance", "error"}, {"message"}),
}

REQUESTS: dict[type[BaseModel], tuple[str, set[str], set[str]]] = {
    # `scopes` (DNF) and `observed_at` are in the docs and the Python client, not the OpenAPI.
    wire.FactsRequest: ("FactsRequest", {"scopes", "observed_at"}, set()),
    wire.Triple: ("Triple", set(), set()),
    wire.TripleEntity: ("TripleEntity", set(), set()),
    wire.RegisterScopeRequest: ("RegisterScopeRequestJson", set(), set()),
    wire.ScopeForgetRequest: ("ScopeForgetRequestJson", set(), set()),
    wire.MintKeyBody: ("MintKeyBody", set(), set()),
}


def _wire_fields(model: type[BaseModel]) -> tuple[set[str], set[str]]:
    names, required = set(), set()
    for name, field in model.model_fields.items():
        wire_name = field.alias or name
        names.add(wire_name)
        if field.is_required():
            required.add(wire_name)
    return names, required


@pytest.mark.parametrize("model", list(RESPONSES) + list(REQUESTS), ids=lambda m: m.__name__)
def test_model_matches_openapi(model):
    schema_name, extra, relaxed = {**RESPONSES, **REQUESTS}[model]
    schema = _spec()["components"]["schemas"][schema_name]
    spec_names = set(schema.get("properties", {}))
    spec_required = set(schema.get("required", []))
    names, required = _wire_fields(model)
    assert names == spec_names | extra, f"{model.__name__} fields differ from {schema_name}"
    assert required == spec_required - relaxed, f"{model.__name__} required set differs from {schema_name}"
    assert not (extra & required), "fields we add must be optional"


def test_responses_are_camel_and_accept_snake():
    detail = wire.AttributeDetail.model_validate(
        {"id": "attribute:x", "entity": "entity:topic/a", "key": "k", "value": "v",
         "memory_category": "knowledge", "importance": 1.0, "createdAt": "2026-01-01T00:00:00Z",
         "supersededBy": None, "validUntil": None, "futureField": 1}
    )
    dumped = detail.model_dump(by_alias=True)
    assert "memoryCategory" in dumped and "createdAt" in dumped and "supersededBy" in dumped


def test_scopes_accept_dnf_flat_and_bare_string():
    assert wire.FactsRequest(scopes="learner/p").scopes == [["learner/p"]]
    assert wire.FactsRequest(scopes=["a", "b"]).scopes == [["a"], ["b"]]
    assert wire.FactsRequest(scopes=[["a", "a", ""], []]).scopes == [["a"]]
    assert wire.FactsRequest(scopes=[[""]]).scopes is None
    assert wire.FactsRequest(scope="x").scope == ["x"]
    assert wire.FactsRequest(scopes=[["a", "b"]], scope=["c", "a"]).scope_paths() == ["a", "b", "c"]


def test_request_models_forbid_unknown_fields_and_bad_enums():
    from pydantic import ValidationError

    with pytest.raises(ValidationError):
        wire.FactsRequest.model_validate({"infer": "triples", "bogus": 1})
    with pytest.raises(ValidationError):
        wire.FactsRequest.model_validate({"infer": "sometimes"})
    with pytest.raises(ValidationError):
        wire.FactsRequest.model_validate({"observed_at": "2026-03-02T14:05:00"})
    with pytest.raises(ValidationError):
        wire.FactsRequest.model_validate({"labels": ["_hidden=1"]})


def test_api_error_takes_both_shapes():
    assert wire.ApiError.model_validate({"message": "boom"}).text() == "boom"
    rfc = {"type": "t", "title": "Validation error", "status": 400, "detail": "k > 50", "instance": "/x"}
    assert wire.ApiError.model_validate(rfc).text() == "k > 50"
    assert wire.ApiError.model_validate({"title": "Nope"}).text() == "Nope"


def test_minted_key_repr_hides_the_key():
    minted = wire.MintedKey(key="sp-abc-supersecret", id="abc")
    assert "supersecret" not in repr(minted) and "supersecret" not in str(minted)
