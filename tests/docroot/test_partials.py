"""C5, C9: the `{{>name}}` graph between partials: what a body reaches, and the loops it would enter."""

from guide.docroot.partials import PartialGraph
from guide.render import inspect


def graph(**bodies: str) -> PartialGraph:
    return PartialGraph(bodies, lambda name: inspect(bodies[name]))


def test_reachable_follows_partials_through_partials_and_skips_missing_ones():
    g = graph(a="{{>b}} {{>missing}}", b="{{>c}}", c="C", d="D")
    assert g.reachable(["a"]) == ["a", "b", "c"]
    assert g.reachable(["missing", "d"]) == ["d"]


def test_no_loop():
    g = graph(a="{{>b}}{{>c}}", b="{{>c}}", c="C")
    assert g.loop_through(["a"]) is None and g.loop_through(["b", "c"]) is None


def test_a_partial_including_itself():
    assert graph(a="{{>a}}").loop_through(["a"]) == ["a", "a"]


def test_a_loop_is_told_from_where_it_is_entered():
    g = graph(a="{{>b}}", b="{{>c}}", c="{{>d}}", d="{{>b}}")
    assert g.loop_through(["c"]) == ["c", "d", "b", "c"]
    assert g.loop_through(["a"]) == ["b", "c", "d", "b"]
    assert g.loop_through(["d"]) == ["d", "b", "c", "d"]


def test_only_the_partials_asked_about_are_read():
    read = []
    bodies = {"a": "{{>b}}", "b": "B", "z": "{{>z}}"}

    def template_of(name):
        read.append(name)
        return inspect(bodies[name])

    PartialGraph(bodies, template_of).loop_through(["a"])
    assert sorted(set(read)) == ["a", "b"]
