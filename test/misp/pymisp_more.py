"""
PyMISP, unchanged, against the MISP-compatible API's second slice (driven by
test/integration/misp-api-pymisp-more.test.ts): free-text import, objects, tag search/view/edit/
delete, multi-value attributes, events/view by POST, sighting lists, feeds, galaxies, taxonomies
and warninglists. Every call's answer is checked here; the script prints one JSON object with what
it created, which the TypeScript test compares with the database.

Mode "flow" (default). Environment: MISP_URL, MISP_KEY (an org admin's key), MISP_ADMIN_KEY (the
site administrator's), MISP_READONLY_KEY (a read-only user of the same organisation), MISP_OTHER_KEY
(another organisation's user), MISP_LISTED_URL (a URL on the enabled warninglist
MISP_WARNINGLIST).

Mode "roundtrip" (argv[1]): each MISP event file named after it is pushed with add_event and read
back with get_event; the raw answers are written as <out dir>/<file name>.
"""
import json
import os
import sys
import uuid

from pymisp import MISPAttribute, MISPEvent, MISPFeed, MISPObject, MISPSighting, MISPTag, PyMISP

from checks import check, checks, error_of

URL = os.environ["MISP_URL"]


def roundtrip(out_dir, files):
    misp = PyMISP(URL, os.environ["MISP_KEY"], ssl=False)
    for path in files:
        event = MISPEvent()
        event.load_file(path)
        added = misp.add_event(event)
        check(f"add {os.path.basename(path)}", "Event" in added, added)
        if added.get("errors"):
            print(json.dumps({"file": os.path.basename(path), "errors": added["errors"]}), file=sys.stderr)
        back = misp.get_event(event.uuid)
        check(f"get {os.path.basename(path)}", "Event" in back and back["Event"]["uuid"] == event.uuid, back)
        with open(os.path.join(out_dir, os.path.basename(path)), "w") as f:
            json.dump(back, f)
    print(json.dumps({"checks": checks}))


def flow():
    misp = PyMISP(URL, os.environ["MISP_KEY"], ssl=False)
    admin = PyMISP(URL, os.environ["MISP_ADMIN_KEY"], ssl=False)
    readonly = PyMISP(URL, os.environ["MISP_READONLY_KEY"], ssl=False)
    other = PyMISP(URL, os.environ["MISP_OTHER_KEY"], ssl=False)
    denied = "You do not have permission to use this functionality."

    event = MISPEvent()
    event.info = "PyMISP second slice"
    event.distribution = 0
    created = misp.add_event(event, pythonify=True)
    check("add_event", isinstance(created, MISPEvent) and str(created.id).isdigit(), created)

    # events/view by POST (get_event with deleted) and HEAD.
    by_post = misp.get_event(created.id, deleted=True, pythonify=True)
    check("view by POST", isinstance(by_post, MISPEvent) and by_post.uuid == created.uuid, by_post)
    check("view HEAD", misp.event_exists(created.uuid) is True)

    # Free text: refanged, typed, created; then only proposed; then the warninglists.
    text = "Seen 198.51.100.23, hxxps://bad-freetext[.]com/x.php and evil-freetext[.]com; hash 44d88612fea8a8f36de82e1278abb02f. Nothing else."
    found = misp.freetext(created, text, pythonify=True)
    check("freetext list", isinstance(found, list) and all(isinstance(a, MISPAttribute) for a in found), found)
    by_value = {a.value: a for a in found}
    check("freetext values", set(by_value) == {"198.51.100.23", "https://bad-freetext.com/x.php", "evil-freetext.com", "44d88612fea8a8f36de82e1278abb02f"}, list(by_value))
    check("freetext types", [by_value[v].type for v in ["198.51.100.23", "https://bad-freetext.com/x.php", "evil-freetext.com", "44d88612fea8a8f36de82e1278abb02f"]] == ["ip-dst", "url", "domain", "md5"])
    check("freetext ids", all(int(a.event_id) == int(created.id) and str(a.id).isdigit() for a in found))
    again = misp.freetext(created, "198.51.100.23", pythonify=True)
    check("freetext duplicate left out", again == [], again)
    meta = misp.freetext(created, "203.0.113.77 and CVE-2021-44228", returnMetaAttributes=True)
    check("freetext meta", [(m["value"], m["default_type"]) for m in meta] == [("203.0.113.77", "ip-dst"), ("CVE-2021-44228", "vulnerability")] and meta[0]["types"] == {"ip-dst": "ip-dst"}, meta)
    listed = os.environ["MISP_LISTED_URL"]
    strict = misp.freetext(created, f"{listed} 198.51.100.24", adhereToWarninglists=True, pythonify=True)
    check("freetext adhere", [a.value for a in strict] == ["198.51.100.24"], strict)
    soft = misp.freetext(created, listed, adhereToWarninglists="soft", distribution=1, pythonify=True)
    check("freetext soft", [(a.value, a.to_ids, int(a.distribution)) for a in soft] == [(listed, False, 1)], soft)
    values = {a.value for a in misp.get_event(created.id, pythonify=True).attributes}
    check("freetext stored", "203.0.113.77" not in values and {"198.51.100.23", "198.51.100.24", listed} <= values, values)

    # Multi-value attributes/add.
    multi = misp.add_attribute(created.id, {"type": "ip-src", "value": ["192.0.2.201", "192.0.2.202"], "comment": "two"})
    check("multi-value", sorted(a["value"] for a in multi["Attribute"]) == ["192.0.2.201", "192.0.2.202"] and all(a["comment"] == "two" for a in multi["Attribute"]), multi)
    # One created of two: MISP answers it as an object (PyMISP's pythonify expects a list there and fails on MISP too).
    mixed = misp.add_attribute(created.id, [{"type": "ip-src", "value": "192.0.2.203"}, {"type": "ip-src", "value": "nope"}])
    check("list, one refused", mixed["Attribute"]["value"] == "192.0.2.203" and list(mixed["errors"]) == ["attribute_1"], mixed)
    both = misp.add_attribute(created.id, [{"type": "ip-src", "value": "192.0.2.204"}, {"type": "ip-src", "value": "192.0.2.205"}], pythonify=True)
    check("list pythonified", [a.value for a in both["attributes"]] == ["192.0.2.204", "192.0.2.205"] and "errors" not in both, both)

    # Objects: from PyMISP's templates, an attribute tag and a reference.
    target = by_value["198.51.100.23"]
    obj = MISPObject("domain-ip", standalone=False)
    obj.add_attribute("domain", value="object-more.example.com")
    ip = obj.add_attribute("ip", value="198.51.100.55")
    ip.add_tag("tlp:green")
    obj.add_reference(target.uuid, "related-to", comment="seen together")
    added = misp.add_object(created.id, obj, pythonify=True)
    check("add_object", isinstance(added, MISPObject) and added.uuid == obj.uuid and str(added.id).isdigit() and int(added.event_id) == int(created.id), added)
    check("object template", added.name == "domain-ip" and added.template_uuid == obj.template_uuid and str(added.template_version) == str(obj.template_version))
    relations = {a.object_relation: a for a in added.attributes}
    check("object attributes", set(relations) == {"domain", "ip"} and relations["ip"].value == "198.51.100.55" and relations["ip"].type == "ip-dst", relations)
    check("object attribute tag", [t.name for t in relations["ip"].tags] == ["tlp:green"])
    check("object reference", [(r.referenced_uuid, r.relationship_type, r.comment) for r in added.references] == [(target.uuid, "related-to", "seen together")], added.references)
    got = misp.get_object(added.id, pythonify=True)
    check("get_object", got.uuid == obj.uuid and {a.uuid for a in got.attributes} == {a.uuid for a in added.attributes}, got)
    check("object_exists", misp.object_exists(obj.uuid) is True)
    in_event = misp.get_event(created.id, pythonify=True)
    check("object in event", [o.uuid for o in in_event.objects] == [obj.uuid])
    # A standalone object (PyMISP's default) sends no references: add_object_reference adds them after.
    standalone = MISPObject("file")
    standalone.add_attribute("filename", value="standalone.exe")
    stored_file = misp.add_object(created.id, standalone, pythonify=True)
    check("standalone object", stored_file.uuid == standalone.uuid and stored_file.references == [], stored_file)
    ref = stored_file.add_reference(target.uuid, "derived-from", comment="later")
    added_ref = misp.add_object_reference(ref, pythonify=True)
    check("add_object_reference", added_ref.object_uuid == standalone.uuid and added_ref.referenced_uuid == target.uuid and added_ref.relationship_type == "derived-from" and str(added_ref.object_id) == str(stored_file.id) and added_ref.referenced_type == "0", added_ref)
    check("reference stored", [(r.uuid, r.comment) for r in misp.get_object(standalone.uuid, pythonify=True).references] == [(added_ref.uuid, "later")])
    status, body = error_of(other.add_object_reference(ref))
    check("other org: add_object_reference", status == 404 and body["message"] == "Invalid object.", body)
    status, body = error_of(readonly.add_object_reference(ref))
    check("read-only: add_object_reference", status == 403 and body["message"] == denied, body)
    file_obj = MISPObject("file")
    file_obj.add_attribute("filename", value="dropper.exe")
    file_obj.add_attribute("sha256", value="not a hash")
    refused = misp.add_object(created.id, file_obj)
    status, body = error_of(refused)
    check("object refused", status == 403 and body["saved"] is False and body["message"] == "Could not add Object", refused)
    check("object refused: nothing", misp.object_exists(file_obj.uuid) is False)
    empty = misp.add_object(created.id, MISPObject("file"))
    status, body = error_of(empty)
    check("object without attributes", status == 403 and body["errors"] == "Could not save the object as no attributes were set.", empty)
    # objects/edit (update_object): a changed attribute kept by uuid, a new one, the one left out soft-deleted.
    editable = misp.get_object(added.id, pythonify=True)
    ip_attr = editable.get_attributes_by_relation("ip")[0]
    ip_attr.value = "198.51.100.56"
    ip_attr.comment = "moved"
    editable.attributes = [a for a in editable.attributes if a.object_relation != "domain"]
    editable.add_attribute("domain", value="object-edited.example.com")
    editable.comment = "edited by PyMISP"
    edited = misp.update_object(editable, pythonify=True)
    check("update_object", isinstance(edited, MISPObject) and edited.uuid == obj.uuid and edited.comment == "edited by PyMISP", edited)
    live = {a.object_relation: a for a in edited.attributes if not a.deleted}
    check("update_object attributes", set(live) == {"domain", "ip"} and live["domain"].value == "object-edited.example.com" and live["ip"].uuid == ip_attr.uuid and live["ip"].value == "198.51.100.56" and live["ip"].comment == "moved", edited.attributes)
    check("update_object left out", [a.value for a in edited.attributes if a.deleted] in ([], ["object-more.example.com"]) and "object-more.example.com" not in [a.value for a in misp.get_object(added.uuid, pythonify=True).attributes if not a.deleted])
    bad = misp.get_object(added.id, pythonify=True)
    bad.get_attributes_by_relation("ip")[0].value = "not an ip"
    status, body = error_of(misp.update_object(bad))
    check("update_object refused", status == 403 and body["message"] == "Could not edit Object" and body["saved"] is False, body)
    check("update_object refused: nothing", misp.get_object(added.id, pythonify=True).get_attributes_by_relation("ip")[0].value == "198.51.100.56")
    status, body = error_of(other.update_object(editable))
    check("other org: update_object", status == 404 and body["message"] == "Invalid object.", body)
    status, body = error_of(readonly.update_object(editable))
    check("read-only: update_object", status == 403 and body["message"] == denied, body)
    status, body = error_of(misp.update_object(editable, object_id=2147483647))
    check("update_object missing", status == 404 and body["message"] == "Invalid object.", body)
    soft_deleted = misp.delete_object(added.id)
    check("delete_object", soft_deleted["saved"] is True and soft_deleted["message"] == "Object deleted" and soft_deleted["id"] == str(created.id), soft_deleted)
    status, body = error_of(misp.get_object(added.id))
    check("deleted object hidden", status == 404 and body["message"] == "Invalid object.")
    status, body = error_of(misp.delete_object(added.id))
    check("delete twice", status == 404)
    check("hard delete", misp.delete_object(added.uuid, hard=True)["saved"] is True)

    # Tags: search (with the taxonomy), view, edit and delete.
    tag = MISPTag()
    tag.name = f"pymisp-more:{uuid.uuid4().hex[:8]}"
    tag.colour = "#aa0000"
    new_tag = misp.add_tag(tag, pythonify=True)
    like = misp.search_tags("pymisp-more:%", pythonify=True)
    check("search_tags like", tag.name in [t.name for t in like], like)
    exact = misp.search_tags(tag.name.upper(), strict_tagname=True)
    check("search strict is exact", exact == [], exact)
    tlp = misp.search_tags("tlp:green", strict_tagname=True)
    check("search taxonomy", len(tlp) == 1 and tlp[0]["Tag"]["name"] == "tlp:green" and tlp[0]["Taxonomy"]["namespace"] == "tlp" and tlp[0]["TaxonomyPredicate"]["value"] == "green", tlp)
    viewed = misp.get_tag(new_tag.id, pythonify=True)
    check("get_tag", viewed.name == tag.name and viewed.colour == "#aa0000", viewed)
    # count: the events carrying it that the caller reads (attribute_count, from the search indices, is
    # tested where the worker indexes: misp-tags-duplicates.test.ts).
    check("tag the event", "successfully" in misp.tag(created, tag.name)["message"])
    counted = misp.get_tag(new_tag.id)
    check("get_tag counts", counted["count"] == 1 and isinstance(counted["attribute_count"], int) and counted["name"] == tag.name, counted)
    foreign = other.get_tag(new_tag.id)
    check("other org: get_tag counts", foreign["count"] == 0 and foreign["attribute_count"] == 0, foreign)
    status, body = error_of(misp.get_tag(2147483647))
    check("get_tag missing", status == 405 and body["message"] == "Invalid Tag", body)
    status, body = error_of(misp.update_tag(viewed))
    check("update_tag needs tags:update", status == 403 and body["message"] == denied, body)
    viewed.colour = "#00aa00"
    edited = admin.update_tag(viewed, pythonify=True)
    check("update_tag", edited.colour == "#00aa00" and edited.name == tag.name, edited)
    gone = admin.delete_tag(new_tag.id)
    check("delete_tag", gone == {"name": "Tag deleted.", "message": "Tag deleted.", "url": f"/tags/delete/{new_tag.id}"}, gone)
    status, body = error_of(admin.get_tag(new_tag.id))
    check("deleted tag", status == 405)

    # Sightings: of an attribute, of the event, all.
    s = MISPSighting()
    s.from_dict(source="more", type="0")
    seen = misp.add_sighting(s, target, pythonify=True)
    check("add_sighting", int(seen.attribute_id) == int(target.id), seen)
    of_attribute = misp.sightings(target, pythonify=True)
    check("sightings of attribute", [(x.uuid, int(x.attribute_id), x.source) for x in of_attribute] == [(seen.uuid, int(target.id), "more")], of_attribute)
    of_event = misp.sightings(in_event)
    check("sightings of event", [x["Sighting"]["uuid"] for x in of_event] == [seen.uuid], of_event)
    everything = misp.sightings(pythonify=True)
    check("sightings index", seen.uuid in [x.uuid for x in everything])
    status, body = error_of(other.sightings(target))
    check("other org: sightings", status == 404 and body["message"] == "Invalid attribute", body)
    status, body = error_of(other.delete_sighting(seen.id))
    check("other org: delete_sighting", status == 404 and body["message"] == "Invalid sighting.", body)
    status, body = error_of(readonly.delete_sighting(seen.uuid))
    check("read-only: delete_sighting", status == 403 and body["message"] == denied, body)
    unsighted = misp.delete_sighting(seen.id)
    check("delete_sighting", unsighted["saved"] is True and unsighted["message"] == "Sighting successfully deleted.", unsighted)
    check("sighting gone", misp.sightings(target) == [])
    status, body = error_of(misp.delete_sighting(seen.uuid))
    check("delete_sighting twice", status == 404 and body["message"] == "Invalid sighting.", body)

    # Feeds.
    feed = MISPFeed()
    feed.name = f"more-feed-{uuid.uuid4().hex[:6]}"
    feed.provider = "PyMISP"
    feed.url = "https://feeds.example.com/list.txt"
    feed.source_format = "freetext"
    feed.input_source = "network"
    feed.enabled = False
    feed.distribution = 0
    new_feed = misp.add_feed(feed, pythonify=True)
    check("add_feed", isinstance(new_feed, MISPFeed) and str(new_feed.id).isdigit() and new_feed.name == feed.name and new_feed.enabled is False and new_feed.source_format == "freetext" and new_feed.settings == {}, new_feed)
    check("feeds", feed.name in [f.name for f in misp.feeds(pythonify=True)])
    check("get_feed", misp.get_feed(new_feed.id, pythonify=True).url == feed.url)
    check("fetch disabled", misp.fetch_feed(new_feed.id) == {"result": "Feed is currently not enabled. Make sure you enable it."})
    enabled = misp.enable_feed(new_feed.id, pythonify=True)
    check("enable_feed", enabled.enabled is True and enabled.name == feed.name, enabled)
    check("fetch", misp.fetch_feed(new_feed.id) == {"result": "Pull queued for background execution."})
    renamed = misp.get_feed(new_feed.id, pythonify=True)
    renamed.name = feed.name + "-renamed"
    updated = misp.update_feed(renamed, pythonify=True)
    check("update_feed", updated.name == feed.name + "-renamed" and updated.enabled is True, updated)
    disabled = misp.direct_call(f"feeds/disable/{new_feed.id}", {})
    check("feeds/disable", disabled["message"] == "Feed disabled." and misp.get_feed(new_feed.id, pythonify=True).enabled is False, disabled)
    status, body = error_of(other.get_feed(new_feed.id))
    check("other org: feed", status == 404 and body["message"] == "Invalid feed.", body)
    check("other org: feeds", feed.name + "-renamed" not in [f["Feed"]["name"] for f in other.feeds()])
    status, body = error_of(misp.get_feed(2147483647))
    check("missing feed", status == 404)
    # A second feed: fetched with all enabled ones, then deleted; caching is refused in words.
    second = MISPFeed()
    second.from_dict(name=f"more-feed-2-{uuid.uuid4().hex[:6]}", provider="PyMISP", url="https://feeds.example.com/second.txt", source_format="freetext", input_source="network", enabled=True, distribution=0)
    second = misp.add_feed(second, pythonify=True)
    check("fetch_all_feeds", misp.fetch_all_feeds() == {"result": "Pull queued for background execution."})
    status, body = error_of(misp.cache_all_feeds())
    check("cache_all_feeds", status == 405 and body["message"].startswith("Feed caching is not available"), body)
    status, body = error_of(misp.cache_feed(second.id))
    check("cache_feed", status == 405, body)
    # The other organisation's user holds no feeds:delete (the cross-organisation matrix tests one who does: 404).
    status, body = error_of(other.delete_feed(second.id))
    check("other org: delete_feed", status == 403 and body["message"] == denied, body)
    status, body = error_of(readonly.delete_feed(second.id))
    check("read-only: delete_feed", status == 403 and body["message"] == denied, body)
    deleted_feed = misp.delete_feed(second.id)
    check("delete_feed", deleted_feed["saved"] is True and deleted_feed["message"] == "Feed deleted." and deleted_feed["id"] == str(second.id), deleted_feed)
    status, body = error_of(misp.delete_feed(second.id))
    check("delete_feed again", status == 404 and body["message"] == "Invalid Feed.", body)

    # Galaxies, taxonomies, warninglists.
    galaxies = misp.galaxies(pythonify=True)
    check("galaxies", "mitre-attack-pattern" in [g.type for g in galaxies] and all(str(g.id).isdigit() for g in galaxies), galaxies)
    taxonomies = misp.taxonomies(pythonify=True)
    check("taxonomies", "tlp" in [t.namespace for t in taxonomies] and len(taxonomies) > 100, len(taxonomies))
    lists = misp.warninglists(pythonify=True)
    on = [w for w in lists if w.name == os.environ["MISP_WARNINGLIST"]]
    check("warninglists", len(on) == 1 and on[0].enabled is True and int(on[0].warninglist_entry_count) > 0, on)

    # Another organisation and a read-only key.
    status, body = error_of(other.freetext(created, "198.51.100.99"))
    check("other org: freetext", status == 404 and body["message"] == "Invalid event.", body)
    status, body = error_of(other.add_object(created.id, obj))
    check("other org: add_object", status == 404, body)
    status, body = error_of(readonly.freetext(created, "198.51.100.98"))
    check("read-only: freetext", status == 403 and body["message"] == denied, body)
    status, body = error_of(readonly.add_object(created.id, obj))
    check("read-only: add_object", status == 403 and body["message"] == denied, body)
    status, body = error_of(readonly.add_feed(feed))
    check("read-only: add_feed", status == 403 and body["message"] == denied, body)
    check("read-only reads objects' event", int(readonly.get_event(created.id, pythonify=True).id) == int(created.id))

    print(json.dumps({"checks": checks, "event_uuid": created.uuid, "feed_id": int(new_feed.id), "deleted_feed_id": int(second.id), "object_uuid": obj.uuid, "refused_object_uuid": file_obj.uuid, "tag_id": int(new_tag.id)}))


if len(sys.argv) > 1 and sys.argv[1] == "roundtrip":
    roundtrip(sys.argv[2], sys.argv[3:])
else:
    flow()
