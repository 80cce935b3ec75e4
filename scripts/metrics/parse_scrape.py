"""Parses a Prometheus text scrape (the file named by the first argument, or stdin) with the
official client's parser and prints its families as JSON:
[{"name", "type", "samples": [{"name", "labels", "value"}]}], an infinite value as null.

Exits non-zero (the parser's exception) when the text is not valid exposition format."""
import json
import math
import sys

from prometheus_client.parser import text_string_to_metric_families


def value(number):
    return None if math.isinf(number) or math.isnan(number) else number


families = []
text = open(sys.argv[1], encoding="utf-8").read() if len(sys.argv) > 1 else sys.stdin.read()
for family in text_string_to_metric_families(text):
    families.append(
        {
            "name": family.name,
            "type": family.type,
            "samples": [
                {"name": s.name, "labels": dict(s.labels), "value": value(s.value)} for s in family.samples
            ],
        }
    )
json.dump(families, sys.stdout)
