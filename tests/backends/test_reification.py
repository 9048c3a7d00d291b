"""The reification profile's converter and the profile registry."""

from __future__ import annotations

import pyoxigraph as ox
import pytest

from gateway import Gateway, InvalidInput
from gateway.profiles import PROFILES, profile_class
from gateway.profiles.native import NativeProfile
from gateway.profiles.reification import (
    PlainProfile,
    ReificationProfile,
    native_to_reification,
)
from tests.conftest import DEMO

RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"


def test_every_reifier_becomes_a_statement_node_in_its_graph() -> None:
    native = ox.Store()
    native.load(path=DEMO, format=ox.RdfFormat.TRIG)
    converted = ox.Store()
    converted.load(native_to_reification(DEMO).encode(), format=ox.RdfFormat.N_QUADS)
    reifies = ox.NamedNode(RDF + "reifies")
    reifiers = list(native.quads_for_pattern(None, reifies, None, None))
    assert reifiers and not list(converted.quads_for_pattern(None, reifies, None, None))
    for quad in reifiers:
        triple = quad.object
        for predicate, value in (("type", ox.NamedNode(RDF + "Statement")), ("subject", triple.subject),
                                 ("predicate", triple.predicate), ("object", triple.object)):
            assert ox.Quad(quad.subject, ox.NamedNode(RDF + predicate), value, quad.graph_name) in converted
    # everything else is kept as it was
    others = [q for q in native if q.predicate != reifies]
    assert all(q in converted for q in others)
    assert len(converted) == len(others) + 4 * len(reifiers)


def test_a_store_and_text_convert_alike() -> None:
    store = ox.Store()
    store.load(path=DEMO, format=ox.RdfFormat.TRIG)
    from_store, from_file = ox.Store(), ox.Store()
    from_store.load(native_to_reification(store).encode(), format=ox.RdfFormat.N_QUADS)
    from_file.load(native_to_reification(DEMO).encode(), format=ox.RdfFormat.N_QUADS)
    assert set(from_store) == set(from_file)  # the same graph (a store writes 1.0 as "1")


@pytest.mark.parametrize(
    "text",
    [
        "<http://e/r> <http://www.w3.org/1999/02/22-rdf-syntax-ns#reifies> "
        "<<( <http://e/s> <http://e/p> <<( <http://e/a> <http://e/b> <http://e/c> )>> )>> .",
        "<http://e/x> <http://e/says> <<( <http://e/s> <http://e/p> <http://e/o> )>> .",
    ],
)
def test_triple_terms_reification_cannot_say_are_refused(text: str) -> None:
    with pytest.raises(InvalidInput):
        native_to_reification(text)


def test_profiles_by_name() -> None:
    assert set(PROFILES) == {"native", "reification", "plain", "wikidata"}
    assert profile_class("native") is NativeProfile
    assert profile_class("reification") is ReificationProfile
    assert profile_class("plain") is PlainProfile
    with pytest.raises(InvalidInput) as caught:
        Gateway.connect("http://127.0.0.1:9/sparql", profile="wikibase")
    assert caught.value.field == "profile"
