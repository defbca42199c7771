#!/usr/bin/env python3
"""Writes manifests/examples/: valid manifests and invalid ones that each break one rule, and
expected.json, which says what trailpack must report for each and whether a JSON Schema
validator can see the problem ("schema": "invalid") or not ("schema": "valid": a rule beyond
what a schema expresses; docs/FORMAT.md lists them). Deterministic. Usage: python3 scripts/make_examples.py
"""
import copy, json, os

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "manifests", "examples")
H = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"


def asset(path, kind="text", media="text/markdown", size=120, title=None, **texts):
    a = {"path": path, "kind": kind, "mediaType": media, "size": size, "sha256": H}
    if title:
        a["title"] = title
    a.update(texts)  # alt, transcript, captions
    return a


BASE = {
    "formatVersion": 1,
    "id": "gov.usda.fs.willamette.fish-lake",
    "version": "1.2.0",
    "name": "Fish Lake Walk",
    "park": "Willamette National Forest",
    "site": {"id": "willamette-mckenzie-river", "name": "McKenzie River Ranger District"},
    "mapName": "fish-lake",
    "bounds": {"southwest": {"latitude": 44.38, "longitude": -122.02}, "northeast": {"latitude": 44.42, "longitude": -121.97}},
    "description": "A short walk around the seasonal lake and the old remount depot.",
    "waypoints": [
        {"name": "Remount Depot", "slug": "remount-depot", "order": 1,
         "coordinate": {"latitude": 44.4057, "longitude": -121.9929},
         "description": "Pack mules and horses were kept here for fire crews.",
         "properties": {"builtYear": 1924, "accessible": True},
         "assets": [asset("waypoints/remount-depot/about.md"),
                    asset("waypoints/remount-depot/barn.jpg", "image", "image/jpeg", 20480, "The barn",
                          alt="A long wooden barn with a shingle roof and open stalls")]},
        {"name": "Fish Lake", "slug": "fish-lake", "order": 2,
         "coordinate": {"latitude": 44.4010, "longitude": -121.9990},
         "description": "In spring the lake is full; by August it is a meadow.",
         "assets": [asset("waypoints/fish-lake/narration.mp3", "audio", "audio/mpeg", 51200,
                          transcript="Ranger: In spring the lake fills with snowmelt. By August it drains into the lava.")]},
    ],
    "mapAssets": [asset("map/fish-lake.mbtiles", "tiles", "application/vnd.mapbox-vector-tile+sqlite3", 1048576)],
}

examples = {}


def put(kind, name, doc, codes=(), schema=None, raw=None):
    path = os.path.join(ROOT, kind, name + ".json")
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        if raw is not None:
            f.write(raw)
        else:
            json.dump(doc, f, indent=2, ensure_ascii=False)
            f.write("\n")
    valid = kind == "valid"
    examples[f"{kind}/{name}.json"] = {"valid": valid, "codes": list(codes),
                                       "schema": schema or ("valid" if valid else "invalid")}


def broken(name, codes, mutate, schema="invalid"):
    doc = copy.deepcopy(BASE)
    mutate(doc)
    put("invalid", name, doc, codes, schema)


for d in ("valid", "invalid"):
    os.makedirs(os.path.join(ROOT, d), exist_ok=True)
    for f in os.listdir(os.path.join(ROOT, d)):
        os.remove(os.path.join(ROOT, d, f))

put("valid", "fish-lake", BASE)
minimal = copy.deepcopy(BASE)
del minimal["mapAssets"]
minimal["waypoints"] = minimal["waypoints"][:1]
del minimal["waypoints"][0]["properties"]
minimal["waypoints"][0]["assets"] = []
put("valid", "minimal", minimal)
fiji = copy.deepcopy(minimal)
fiji.update({"id": "fj.parks.taveuni-coastal-walk", "name": "Taveuni Coastal Walk", "park": "Bouma National Heritage Park",
             "site": {"id": "taveuni", "name": "Taveuni"}, "mapName": "taveuni",
             "bounds": {"southwest": {"latitude": -17.2, "longitude": 179.5}, "northeast": {"latitude": -16.6, "longitude": -179.6}},
             "description": "A walk that crosses the 180th meridian: the bounds run from 179.5 E to 179.6 W."})
fiji["waypoints"] = [
    {"name": "Meridian Marker", "slug": "meridian-marker", "order": 1, "coordinate": {"latitude": -16.81, "longitude": 179.99},
     "description": "Stand with one foot on each side of the date line.", "assets": []},
    {"name": "Lavena Point", "slug": "lavena-point", "order": 2, "coordinate": {"latitude": -16.86, "longitude": -179.89},
     "description": "The coastal path ends at the village of Lavena.", "assets": [], "properties": {"difficulty": "easy", "tags": ["coast", "village"]}},
]
put("valid", "antimeridian", fiji)
unicode = copy.deepcopy(minimal)
unicode["name"] = "Sentier du Lac-à-l'Eau-Claire — Île d'Orléans"
unicode["waypoints"][0]["name"] = "Église Saint-François"
put("valid", "unicode-names", unicode)

broken("format-version-2", ["manifest.format-version"], lambda d: d.update(formatVersion=2))
broken("missing-name", ["manifest.missing-field"], lambda d: d.pop("name"))
broken("order-as-string", ["manifest.wrong-type"], lambda d: d["waypoints"][0].update(order="1"))
broken("unknown-field", ["manifest.unknown-field"], lambda d: d.update(parkName="x"))
broken("blank-name", ["manifest.text"], lambda d: d.update(name="   "))
broken("name-with-newline", ["manifest.text"], lambda d: d["waypoints"][0].update(name="Remount\nDepot"))
broken("id-uppercase", ["manifest.id"], lambda d: d.update(id="Gov.USDA.fish-lake"))
broken("version-leading-zero", ["manifest.version"], lambda d: d.update(version="1.02"))
broken("site-id-spaces", ["site.id"], lambda d: d["site"].update(id="McKenzie River"))
broken("latitude-95", ["coordinate.latitude"], lambda d: d["waypoints"][1]["coordinate"].update(latitude=95.0))
broken("longitude-minus-200", ["coordinate.longitude"], lambda d: d["waypoints"][1]["coordinate"].update(longitude=-200.0))
broken("bounds-inverted", ["bounds.inverted"], lambda d: d["bounds"].update(
    southwest={"latitude": 44.42, "longitude": -122.02}, northeast={"latitude": 44.38, "longitude": -121.97}), schema="valid")
broken("bounds-degenerate", ["bounds.degenerate"], lambda d: d["bounds"].update(
    southwest={"latitude": 44.40, "longitude": -122.02}, northeast={"latitude": 44.40, "longitude": -121.97}), schema="valid")
broken("no-waypoints", ["waypoint.none"], lambda d: d.update(waypoints=[]))
broken("names-differ-only-in-case", ["waypoint.name-duplicate"], lambda d: d["waypoints"][1].update(name="REMOUNT DEPOT"), schema="valid")
broken("names-differ-only-in-normalization", ["waypoint.name-duplicate"],
       lambda d: (d["waypoints"][0].update(name="Caf\u00e9"), d["waypoints"][1].update(name="Cafe\u0301")), schema="valid")
broken("slug-with-underscore", ["waypoint.slug"], lambda d: d["waypoints"][0].update(slug="remount_depot"))
broken("slug-duplicate", ["waypoint.slug-duplicate", "asset.path-folder"], lambda d: d["waypoints"][1].update(slug="remount-depot"), schema="valid")
broken("order-zero", ["waypoint.order"], lambda d: d["waypoints"][0].update(order=0))
broken("order-duplicate", ["waypoint.order-duplicate"], lambda d: d["waypoints"][1].update(order=1), schema="valid")
broken("waypoint-outside-bounds", ["waypoint.outside-bounds"], lambda d: d["waypoints"][1]["coordinate"].update(latitude=45.0), schema="valid")
broken("antimeridian-outside", ["waypoint.outside-bounds"], lambda d: (
    d["bounds"].update(southwest={"latitude": -17.2, "longitude": 179.5}, northeast={"latitude": -16.6, "longitude": -179.6}),
    [w["coordinate"].update(latitude=-16.8, longitude=179.7) for w in d["waypoints"]],
    d["waypoints"][1]["coordinate"].update(longitude=0.0)), schema="valid")
broken("property-object", ["waypoint.property"], lambda d: d["waypoints"][0]["properties"].update(nested={"a": 1}))
broken("property-name", ["waypoint.property"], lambda d: d["waypoints"][0]["properties"].update({"1st": True}))
broken("asset-path-traversal", ["asset.path"], lambda d: d["waypoints"][0]["assets"][0].update(path="waypoints/remount-depot/../../etc/passwd"))
broken("asset-path-backslash", ["asset.path"], lambda d: d["waypoints"][0]["assets"][0].update(path="waypoints/remount-depot\\about.md"))
broken("asset-path-absolute", ["asset.path"], lambda d: d["waypoints"][0]["assets"][0].update(path="/waypoints/remount-depot/about.md"))
broken("asset-path-not-nfc", ["asset.path"], lambda d: d["waypoints"][0]["assets"][0].update(path="waypoints/remount-depot/cafe\u0301.md"), schema="valid")
broken("asset-path-reserved-name", ["asset.path"], lambda d: d["waypoints"][0]["assets"][0].update(path="waypoints/remount-depot/con.md"), schema="valid")
broken("asset-paths-differ-only-in-case", ["asset.path-duplicate"], lambda d: d["waypoints"][0]["assets"][1].update(path="waypoints/remount-depot/ABOUT.md"), schema="valid")
broken("asset-in-other-waypoint-folder", ["asset.path-folder"], lambda d: d["waypoints"][1]["assets"][0].update(path="waypoints/remount-depot/narration.mp3"), schema="valid")
broken("asset-kind", ["asset.kind"], lambda d: d["waypoints"][0]["assets"][0].update(kind="document"))
broken("asset-media-type", ["asset.media-type"], lambda d: d["waypoints"][0]["assets"][0].update(mediaType="markdown"))
broken("asset-size-negative", ["asset.size"], lambda d: d["waypoints"][0]["assets"][0].update(size=-1))
broken("asset-sha256-short", ["asset.sha256"], lambda d: d["waypoints"][0]["assets"][0].update(sha256="abc123"))
# Maps: a PMTiles base map and an overlay, with the facts the builder reads from their headers.
MAP_BOUNDS = {"southwest": {"latitude": 44.38, "longitude": -122.02}, "northeast": {"latitude": 44.42, "longitude": -121.97}}


def pmtiles(path, role="base", tile_type="png", zooms=(10, 15)):
    a = asset(path, "tiles", "application/vnd.pmtiles", 2097152)
    a["map"] = {"role": role, "tileType": tile_type, "minZoom": zooms[0], "maxZoom": zooms[1], "bounds": copy.deepcopy(MAP_BOUNDS)}
    return a


with_map = copy.deepcopy(BASE)
with_map["mapAssets"] = [pmtiles("map/fish-lake.pmtiles"), pmtiles("map/overlays/trails.pmtiles", "overlay", "mvt", (12, 16))]
put("valid", "with-map", with_map)


def broken_map(name, codes, mutate, schema="invalid"):
    doc = copy.deepcopy(with_map)
    mutate(doc)
    put("invalid", name, doc, codes, schema)


broken_map("map-zoom-inverted", ["map.fields"], lambda d: d["mapAssets"][0]["map"].update(minZoom=16, maxZoom=12), schema="valid")
broken_map("map-zoom-31", ["map.fields"], lambda d: d["mapAssets"][0]["map"].update(maxZoom=31))
broken_map("map-tile-type-avif", ["map.fields"], lambda d: d["mapAssets"][0]["map"].update(tileType="avif"))
broken_map("map-two-base-maps", ["map.base-multiple"], lambda d: d["mapAssets"].append(pmtiles("map/second.pmtiles")), schema="valid")
broken_map("map-role-not-folder", ["map.fields"], lambda d: d["mapAssets"][1]["map"].update(role="base"), schema="valid")
broken_map("map-fields-on-waypoint-asset", ["map.fields"],
           lambda d: d["waypoints"][0]["assets"][0].update(map=copy.deepcopy(d["mapAssets"][0]["map"])), schema="valid")
broken_map("map-fields-on-mbtiles", ["map.fields"],
           lambda d: d["mapAssets"].append(dict(asset("map/old.mbtiles", "tiles", "application/vnd.mapbox-vector-tile+sqlite3", 1048576),
                                                map=copy.deepcopy(d["mapAssets"][1]["map"]))), schema="valid")
# Accessibility texts: alt text on images, transcripts on recordings, captions (a .vtt of the stop) on videos,
# a waiver when a text truly cannot be given; a missing one is a warning (the package stays valid).
accessible = copy.deepcopy(BASE)
accessible["waypoints"][1]["assets"] += [
    asset("waypoints/fish-lake/meadow.mp4", "video", "video/mp4", 4194304, captions="waypoints/fish-lake/meadow.vtt",
          transcript="The lake bed in August: grass where the water was."),
    asset("waypoints/fish-lake/meadow.vtt", "text", "text/vtt", 900)]
put("valid", "accessibility", accessible)
waived = copy.deepcopy(BASE)
del waived["waypoints"][1]["assets"][0]["transcript"]
waived["waypoints"][1]["accessibilityWaiver"] = "The narration is being transcribed by the district office; due with version 1.3."
put("valid", "accessibility-waiver", waived)


def broken_text(name, codes, mutate, schema="invalid", kind="invalid"):
    doc = copy.deepcopy(accessible)
    mutate(doc)
    put(kind, name, doc, codes, schema)


broken_text("accessibility-missing", ["accessibility.missing"], lambda d: d["waypoints"][0]["assets"][1].pop("alt"), schema="valid", kind="valid")
broken_text("alt-empty", ["asset.accessibility-text"], lambda d: d["waypoints"][0]["assets"][1].update(alt=""))
broken_text("alt-blank", ["asset.accessibility-text"], lambda d: d["waypoints"][0]["assets"][1].update(alt="   "), schema="valid")
broken_text("alt-on-audio", ["asset.accessibility-kind"], lambda d: d["waypoints"][1]["assets"][0].update(alt="A ranger talking"), schema="valid")
broken_text("captions-on-image", ["asset.accessibility-kind"], lambda d: d["waypoints"][0]["assets"][1].update(captions="waypoints/fish-lake/meadow.vtt"), schema="valid")
broken_text("captions-not-listed", ["asset.captions"], lambda d: d["waypoints"][1]["assets"][1].update(captions="waypoints/fish-lake/other.vtt"), schema="valid")
broken_text("transcript-too-long", ["asset.accessibility-text"], lambda d: d["waypoints"][1]["assets"][0].update(transcript="a" * 100001))
# Languages (format 1.1): texts per language beside the default's, files in one language, captions per language.
bilingual = copy.deepcopy(accessible)
bilingual["languages"] = ["en", "es"]
bilingual["translations"] = {"es": {"name": "Paseo del Lago Fish", "park": "Bosque Nacional Willamette", "description": "Un paseo corto alrededor del lago estacional y el antiguo depósito de animales."}}
bilingual["waypoints"][0]["translations"] = {"es": {"name": "Depósito de Remonta", "description": "Aquí se guardaban mulas y caballos para las cuadrillas de incendios."}}
bilingual["waypoints"][0]["assets"][0]["language"] = "en"
bilingual["waypoints"][0]["assets"].insert(1, dict(asset("waypoints/remount-depot/about.es.md"), language="es"))
bilingual["waypoints"][0]["assets"][2]["translations"] = {"es": {"title": "El establo", "alt": "Un largo establo de madera con techo de tejuelas y pesebres abiertos"}}
bilingual["waypoints"][1]["translations"] = {"es": {"name": "Lago Fish", "description": "En primavera el lago está lleno; en agosto es una pradera."}}
bilingual["waypoints"][1]["assets"][0]["language"] = "en"
bilingual["waypoints"][1]["assets"].insert(1, dict(asset("waypoints/fish-lake/narration.es.mp3", "audio", "audio/mpeg", 52000,
    transcript="Guardabosques: En primavera el lago se llena con el deshielo. En agosto se drena en la lava."), language="es"))
meadow = bilingual["waypoints"][1]["assets"][2]
meadow["translations"] = {"es": {"transcript": "El lecho del lago en agosto: pasto donde estaba el agua.", "captions": "waypoints/fish-lake/meadow.es.vtt"}}
bilingual["waypoints"][1]["assets"][3]["language"] = "en"
bilingual["waypoints"][1]["assets"].append(dict(asset("waypoints/fish-lake/meadow.es.vtt", "text", "text/vtt", 950), language="es"))
put("valid", "languages", bilingual)


def broken_language(name, codes, mutate, schema="valid", kind="invalid"):
    doc = copy.deepcopy(bilingual)
    mutate(doc)
    put(kind, name, doc, codes, schema)


broken_language("language-missing", ["language.missing"], lambda d: d["waypoints"][1].pop("translations"), kind="valid")
broken_language("language-required", ["language.required"],
                lambda d: (d.update(requireAllLanguages=True), d["waypoints"][1]["assets"].pop(1)))
broken_language("language-tag-malformed", ["language.tag"], lambda d: d.update(languages=["en", "es_ES"]), schema="invalid")
broken_language("language-declared-twice", ["language.tag"], lambda d: d.update(languages=["en", "es", "ES"]))
broken_language("language-undeclared-translation", ["language.undeclared"],
                lambda d: d["waypoints"][0]["translations"].update(fr={"name": "Dépôt de remonte"}))
broken_language("language-undeclared-asset", ["language.missing", "language.undeclared"], lambda d: d["waypoints"][1]["assets"][1].update(language="fr"))
broken_language("language-default-as-translation", ["language.undeclared"],
                lambda d: d["translations"].update(en={"name": "Fish Lake Walk"}))
broken_language("language-default-missing", ["language.default-missing"],
                lambda d: (d["waypoints"][0]["assets"][2].pop("title")))
broken_language("language-asset-translations", ["language.asset-translations"],
                lambda d: d["waypoints"][1]["assets"][1].update(translations={"es": {"title": "Narración"}}))
broken_language("language-captions-mismatch", ["language.captions", "language.missing"],
                lambda d: d["waypoints"][1]["assets"][2]["translations"]["es"].update(captions="waypoints/fish-lake/meadow.vtt"))
broken_language("language-translation-unknown-field", ["manifest.unknown-field"],
                lambda d: d["waypoints"][0]["translations"]["es"].update(slug="deposito"), schema="invalid")
broken_language("language-on-map", ["language.map"], lambda d: d["mapAssets"][0].update(language="es"))
broken_language("language-translation-blank", ["manifest.text"],
                lambda d: d["translations"]["es"].update(name="  "), schema="invalid")
put("invalid", "not-an-object", None, ["manifest.not-object"], "invalid", raw='[{"formatVersion": 1}]\n')
text = json.dumps(BASE, indent=2)
put("invalid", "duplicate-key", None, ["json.duplicate-key"], "valid",
    raw=text.replace('"name": "Fish Lake Walk",', '"name": "Fish Lake Walk",\n  "name": "Something Else",', 1) + "\n")

with open(os.path.join(ROOT, "expected.json"), "w", encoding="utf-8", newline="\n") as f:
    json.dump(dict(sorted(examples.items())), f, indent=2)
    f.write("\n")
