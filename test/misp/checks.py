"""What the PyMISP test scripts share: named checks that stop the script at the first failure, and PyMISP's error answers."""
import json
import sys

checks = []


def check(name, condition, detail=None):
    if not condition:
        print(json.dumps({"failed": name, "detail": detail}, default=str), file=sys.stderr)
        sys.exit(1)
    checks.append(name)


def error_of(answer):
    """PyMISP turns a 4xx into {'errors': (status, body)}."""
    assert isinstance(answer, dict) and "errors" in answer, answer
    status, body = answer["errors"]
    return status, body
