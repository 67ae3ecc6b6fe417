"""Translates Qdrant REST filter shapes into qdrant_edge objects, for the differential
driver (qdrant_edge_driver.py) and the benchmark's commands (edge_bench_commands.py)."""

import qdrant_edge as q


def geo(p):
    return q.GeoPoint(lon=p["lon"], lat=p["lat"])


def to_match(m):
    if "value" in m:
        return q.MatchValue(m["value"])
    if "text" in m:
        return q.MatchText(m["text"])
    if "text_any" in m:
        return q.MatchTextAny(m["text_any"])
    if "phrase" in m:
        return q.MatchPhrase(m["phrase"])
    if "prefix" in m:
        return q.MatchPrefix(m["prefix"])
    if "substring" in m:
        return q.MatchSubstring(m["substring"])
    if "any" in m:
        return q.MatchAny(m["any"])
    if "except" in m:
        return q.MatchExcept(m["except"])
    raise ValueError(f"unknown match {m}")


def to_range(r):
    bounds = {k: r[k] for k in ("gt", "gte", "lt", "lte") if r.get(k) is not None}
    if any(isinstance(v, str) for v in bounds.values()):
        return q.RangeDateTime(**bounds)
    return q.RangeFloat(**bounds)


def to_field_condition(c):
    kwargs = {}
    if c.get("match") is not None:
        kwargs["match"] = to_match(c["match"])
    if c.get("range") is not None:
        kwargs["range"] = to_range(c["range"])
    if c.get("geo_bounding_box") is not None:
        box = c["geo_bounding_box"]
        kwargs["geo_bounding_box"] = q.GeoBoundingBox(geo(box["top_left"]), geo(box["bottom_right"]))
    if c.get("geo_radius") is not None:
        kwargs["geo_radius"] = q.GeoRadius(geo(c["geo_radius"]["center"]), c["geo_radius"]["radius"])
    if c.get("geo_polygon") is not None:
        poly = c["geo_polygon"]
        interiors = [[geo(p) for p in ring["points"]] for ring in poly.get("interiors") or []]
        kwargs["geo_polygon"] = q.GeoPolygon(
            [geo(p) for p in poly["exterior"]["points"]], interiors or None
        )
    if c.get("values_count") is not None:
        kwargs["values_count"] = q.ValuesCount(**c["values_count"])
    if c.get("is_empty") is not None:
        kwargs["is_empty"] = c["is_empty"]
    if c.get("is_null") is not None:
        kwargs["is_null"] = c["is_null"]
    return q.FieldCondition(c["key"], **kwargs)


def to_condition(c):
    if "key" in c:
        return to_field_condition(c)
    if "is_empty" in c:
        return q.IsEmptyCondition(c["is_empty"]["key"])
    if "is_null" in c:
        return q.IsNullCondition(c["is_null"]["key"])
    if "has_id" in c:
        return q.HasIdCondition(set(c["has_id"]))
    if "has_vector" in c:
        return q.HasVectorCondition(c["has_vector"])
    if "nested" in c:
        return q.NestedCondition(c["nested"]["key"], to_filter(c["nested"]["filter"]))
    return to_filter(c)


def to_filter(f):
    if f is None:
        return None
    kwargs = {}
    for key in ("must", "should", "must_not"):
        value = f.get(key)
        if value is not None:
            # Qdrant also takes a single condition where a list is expected.
            kwargs[key] = [to_condition(c) for c in (value if isinstance(value, list) else [value])]
    if f.get("min_should") is not None:
        ms = f["min_should"]
        kwargs["min_should"] = q.MinShould([to_condition(c) for c in ms["conditions"]], ms["min_count"])
    return q.Filter(**kwargs)
