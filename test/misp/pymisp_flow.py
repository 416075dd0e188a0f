"""
PyMISP, unchanged, against the workbench's MISP-compatible API (driven by
test/integration/misp-api-pymisp.test.ts). Every call's answer is checked here; the script prints
one JSON object with what it created, which the TypeScript test compares with the database.

Environment: MISP_URL (http://host/misp/), MISP_KEY (an org admin's key), MISP_READONLY_KEY (a
read-only user's of the same organisation),
MISP_EMAIL (its user's), MISP_OTHER_KEY (another organisation's user), MISP_FOREIGN_EVENT (the uuid
of that organisation's private event), MISP_AUTH_HEADER (Authorization or X-MISP-AUTH).
"""
import json
import os
import uuid

from pymisp import MISPAttribute, MISPEvent, MISPSighting, MISPTag, PyMISP
from pymisp.exceptions import PyMISPError

from checks import check, checks, error_of

URL = os.environ["MISP_URL"]
KEY = os.environ["MISP_KEY"]
HEADER = os.environ.get("MISP_AUTH_HEADER", "Authorization")


misp = PyMISP(URL, KEY, ssl=False, http_auth_header_name=HEADER)

# Connect: the version PyMISP parses, the user, role and settings it loads, the remote describeTypes.
check("version", misp.misp_instance_version["version"] == "2.5.34", misp.misp_instance_version)
check("version tuple", misp._misp_version == (2, 5, 34))
check("perm_sighting", misp.misp_instance_version["perm_sighting"] is True)
check("user", misp._current_user.email == os.environ["MISP_EMAIL"], misp._current_user)
check("role perms", misp._current_role.perm_add is True and misp._current_role.perm_publish is True and misp._current_role.perm_site_admin is False)
check("describe types remote", misp.describe_types is not misp.describe_types_local and "ip-dst" in misp.types and "Network activity" in misp.categories)
check("sane defaults", misp.sane_default["ip-dst"]["default_category"] == "Network activity")
check("category mapping", "ip-dst" in misp.category_type_mapping["Network activity"])

# Add an event with attributes and tags.
tag_name = f"pymisp-test:{uuid.uuid4().hex[:8]}"
event = MISPEvent()
event.info = "PyMISP drives the workbench"
event.distribution = 0
event.threat_level_id = 2
event.analysis = 1
event.add_tag(tag_name)
a1 = event.add_attribute("ip-dst", "198.51.100.7", comment="c2", to_ids=True)
a2 = event.add_attribute("domain", "pymisp-flow.example")
a2.add_tag("tlp:green")
created = misp.add_event(event, pythonify=True)
check("add_event", isinstance(created, MISPEvent), created)
check("event id numeric", str(created.id).isdigit() and int(created.id) > 0)
check("event uuid kept", created.uuid == event.uuid)
check("event info", created.info == "PyMISP drives the workbench")
check("event tag", [t.name for t in created.tags] == [tag_name])
check("threat level", int(created.threat_level_id) == 2)
by_uuid = {a.uuid: a for a in created.attributes}
check("attributes", set(by_uuid) == {a1.uuid, a2.uuid}, list(by_uuid))
check("attribute ids", all(str(a.id).isdigit() and int(a.event_id) == int(created.id) for a in created.attributes))
check("attribute tag", [t.name for t in by_uuid[a2.uuid].tags] == ["tlp:green"])
check("to_ids", by_uuid[a1.uuid].to_ids is True)

# Adding it again is MISP's 404 with the existing event's place.
again = misp.add_event(event)
status, body = error_of(again)
check("duplicate add", status == 404 and body["message"].startswith("Event already exists"), again)

# Get it back, by id and by uuid.
by_id = misp.get_event(created.id, pythonify=True)
check("get by id", by_id.uuid == created.uuid and int(by_id.id) == int(created.id))
by_uuid_event = misp.get_event(created.uuid, pythonify=True)
check("get by uuid", int(by_uuid_event.id) == int(created.id))
check("get attributes", {a.uuid: int(a.id) for a in by_id.attributes} == {a.uuid: int(a.id) for a in created.attributes})
check("event exists", misp.event_exists(created.id) is True)
check("event missing", misp.event_exists(2147483647) is False)
missing = misp.get_event(2147483647)
status, body = error_of(missing)
check("missing event", status == 404 and body["name"] == "Invalid event" and body["message"] == "Invalid event" and "url" in body, missing)
meta = misp.get_event(created.id, pythonify=False)
check("raw ids are strings", isinstance(meta["Event"]["id"], str) and isinstance(meta["Event"]["Attribute"][0]["id"], str))

# Edit: info changes, an attribute added through the edit.
by_id.info = "PyMISP edited it"
a3 = by_id.add_attribute("url", "https://pymisp-flow.example/edit")
edited = misp.update_event(by_id, pythonify=True)
check("update_event", isinstance(edited, MISPEvent) and edited.info == "PyMISP edited it", edited)
check("edit kept ids", int(edited.id) == int(created.id))
check("edit added attribute", a3.uuid in {a.uuid for a in edited.attributes})

# Attributes: one, then a list with one bad value.
one = misp.add_attribute(created.id, {"type": "sha256", "value": "a" * 64, "comment": "one"}, pythonify=True)
check("add_attribute", isinstance(one, MISPAttribute) and one.type == "sha256" and int(one.event_id) == int(created.id), one)
listed = misp.add_attribute(created.id, [{"type": "ip-src", "value": "203.0.113.9"}, {"type": "ip-src", "value": "not an ip"}])
check("list: one created", listed["Attribute"]["value"] == "203.0.113.9", listed)
check("list: one refused", list(listed["errors"].keys()) == ["attribute_1"] and "value" in listed["errors"]["attribute_1"], listed)
bad = misp.add_attribute(created.id, {"type": "ip-src", "value": "still not an ip"})
status, body = error_of(bad)
check("single refused", status == 403 and body["saved"] is False and body["message"] == "Could not add Attribute" and "value" in body["errors"], bad)
got = misp.get_attribute(one.id, pythonify=True)
check("get_attribute", got.uuid == one.uuid and got.value == "a" * 64)
check("attribute exists", misp.attribute_exists(one.uuid) is True)
got.comment = "edited comment"
got.to_ids = False
updated = misp.update_attribute(got, pythonify=True)
check("update_attribute", updated.comment == "edited comment" and updated.to_ids is False, updated)
missing_attribute = misp.get_attribute(2147483647)
status, body = error_of(missing_attribute)
check("missing attribute", status == 404 and body["message"] == "Invalid attribute", missing_attribute)

# Tags: the index, a new tag, attach and remove on the event and an attribute.
new_tag = MISPTag()
new_tag.name = f"pymisp-new:{uuid.uuid4().hex[:8]}"
new_tag.colour = "#123456"
added_tag = misp.add_tag(new_tag, pythonify=True)
check("add_tag", added_tag.name == new_tag.name and added_tag.colour == "#123456" and str(added_tag.id).isdigit(), added_tag)
names = {t["name"] for t in misp.tags()}
check("tags index", {new_tag.name, tag_name, "tlp:green"} <= names)
attached = misp.tag(created.uuid, new_tag.name)
check("attach to event", attached["saved"] is True and attached["message"] == f"Global tag {new_tag.name}({added_tag.id}) successfully attached to Event({created.id}).", attached)
again = misp.tag(created.uuid, new_tag.name)
check("attach twice", again["message"] == f"Event already has the requested tag attached, no changes had to be made for tag {new_tag.name}.", again)
on_attribute = misp.tag(one.uuid, new_tag.name)
check("attach to attribute", on_attribute["message"].endswith(f"successfully attached to Attribute({one.id})."), on_attribute)
removed = misp.untag(created.uuid, new_tag.name)
check("remove from event", removed["message"] == f"Global tag {new_tag.name} ({added_tag.id}) successfully removed from Event({created.id}).", removed)
not_attached = misp.untag(created.uuid, new_tag.name)
status, body = error_of(not_attached)
check("remove again", status == 404 and body["message"] == "Could not remove tag as it is not attached to the target Event", not_attached)
unknown_tag = misp.untag(created.uuid, "no-such-tag-" + uuid.uuid4().hex)
status, body = error_of(unknown_tag)
check("remove unknown tag", status == 405 and body["message"] == "Invalid Tag.", unknown_tag)
no_target = misp.tag(str(uuid.uuid4()), new_tag.name)
status, body = error_of(no_target)
check("attach to nothing", status == 404 and body["message"] == "Invalid Target.", no_target)
check("event tags now", {t.name for t in misp.get_event(created.id, pythonify=True).tags} == {tag_name})

# A sighting of an attribute, by the path and by value.
sighting = MISPSighting()
sighting.from_dict(source="pymisp-flow", type="0")
seen = misp.add_sighting(sighting, one, pythonify=True)
check("add_sighting", isinstance(seen, MISPSighting) and int(seen.attribute_id) == int(one.id) and seen.source == "pymisp-flow", seen)
by_value = misp.add_sighting({"value": "198.51.100.7", "type": "1"})
check("sighting by value", int(by_value["Sighting"]["attribute_id"]) == int(by_uuid[a1.uuid].id) and by_value["Sighting"]["type"] == "1", by_value)

# Publish, unpublish, the index.
published = misp.publish(created.id)
check("publish", published["saved"] is True and published["message"] == "Event published without alerts", published)
check("published", misp.get_event(created.id, pythonify=True).published is True)
index = misp.search_index(eventinfo="PyMISP edited", published=True, tags=[tag_name], pythonify=True)
check("index finds", [int(e.id) for e in index] == [int(created.id)], index)
check("index not", misp.search_index(tags=[f"!{tag_name}"], eventinfo="PyMISP edited") == [])
unpublished = misp.unpublish(created.id)
check("unpublish", unpublished["message"] == "Event unpublished.", unpublished)
check("index unpublished", misp.search_index(eventinfo="PyMISP edited", published=True) == [])

# Another organisation's private event is invisible; a read-only key is refused on writes.
other = PyMISP(URL, os.environ["MISP_OTHER_KEY"], ssl=False)
hidden = other.get_event(created.id)
status, body = error_of(hidden)
check("other org: hidden", status == 404 and body == {"name": "Invalid event", "message": "Invalid event", "url": f"/misp/events/view/{created.id}"}, hidden)
check("other org: index", other.search_index(eventinfo="PyMISP edited") == [])
foreign = misp.get_event(os.environ["MISP_FOREIGN_EVENT"])
status, body = error_of(foreign)
check("their private event", status == 404 and body["message"] == "Invalid event", foreign)
readonly = PyMISP(URL, os.environ["MISP_READONLY_KEY"], ssl=False)
check("read-only reads", int(readonly.get_event(created.uuid, pythonify=True).id) == int(created.id))
refused_event = MISPEvent()
refused_event.info = "read-only"
refused = readonly.add_event(refused_event)
status, body = error_of(refused)
check("read-only refused", status == 403 and body["message"] == "You do not have permission to use this functionality.", refused)
try:
    PyMISP(URL, "0" * 40, ssl=False)
    check("bad key refused", False)
except PyMISPError as e:
    check("bad key refused", "Authentication failed" in str(e), str(e))

# Delete an attribute (soft, then hard) and the event.
deleted = misp.delete_attribute(one.id)
check("delete attribute", deleted == {"message": "Attribute deleted."}, deleted)
twice = misp.delete_attribute(one.id)
status, body = error_of(twice)
check("delete attribute twice", status == 404 and body["message"] == "Invalid attribute", twice)
hard = misp.delete_attribute(one.id, hard=True)
check("hard delete attribute", hard == {"message": "Attribute deleted."}, hard)
gone = misp.delete_event(created.id)
check("delete event", gone["saved"] is True and gone["message"] == "Event deleted.", gone)
check("deleted", misp.event_exists(created.uuid) is False)

print(json.dumps({"checks": checks, "event_uuid": created.uuid, "event_id": int(created.id), "tag": new_tag.name}))
