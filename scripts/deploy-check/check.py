"""What the schemas cannot check in deploy/ (run by scripts/test-deploy.sh with its venv).

The sweeper's runs must end inside their period (a cron run never overlaps the next), two runs
of one scheduler must never run at once, the job runs as non-root on a read-only root file
system with every setting from streampreview-config / streampreview-secrets, and exits 69 and 75
must stay failures (they are what alerting sees).
Usage: check.py DEPLOY_DIR. Prints each failed check, or one line; exits 1 when any fails.
"""

import configparser
import re
import sys
from pathlib import Path

import yaml

FAILURES = []
PASSED = []


def check(ok, what):
    if ok:
        PASSED.append(what)
    else:
        print("FAIL %s" % what, file=sys.stderr)
        FAILURES.append(what)


def max_seconds(arguments):
    match = re.search(r"--max-seconds[ =](\d+)", " ".join(arguments))
    return int(match.group(1)) if match else 300  # sweep's default


def seconds(value):
    match = re.fullmatch(r"\s*(\d+)\s*(s|min)?\s*", value or "")
    if not match:
        return None
    return int(match.group(1)) * (60 if match.group(2) == "min" else 1)


def kubernetes(folder):
    documents = [doc for path in sorted(folder.glob("*.yaml")) for doc in yaml.safe_load_all(path.read_text()) if doc]
    names = {(doc["kind"], doc["metadata"]["name"]) for doc in documents}
    jobs = [doc for doc in documents if doc["kind"] == "CronJob"]
    check(bool(jobs), "kubernetes: a CronJob")
    for job in jobs:
        name = "CronJob %s" % job["metadata"]["name"]
        spec = job["spec"]
        every = re.fullmatch(r"\*/(\d+) \* \* \* \*", spec["schedule"])
        check(every is not None, "%s: schedule is every N minutes (%s)" % (name, spec["schedule"]))
        period = int(every.group(1)) * 60 if every else 0
        check(spec.get("concurrencyPolicy") == "Forbid", "%s: concurrencyPolicy Forbid" % name)
        job_spec = spec["jobTemplate"]["spec"]
        pod = job_spec["template"]["spec"]
        deadline = job_spec.get("activeDeadlineSeconds")
        check("backoffLimit" in job_spec, "%s: backoffLimit set" % name)
        check(pod.get("securityContext", {}).get("runAsNonRoot") is True, "%s: runAsNonRoot" % name)
        for container in pod["containers"]:
            where = "%s container %s" % (name, container["name"])
            arguments = container.get("command", []) + container.get("args", [])
            limit = max_seconds(arguments)
            check("sweep" in arguments, "%s: runs streampreview sweep" % where)
            check(limit < period, "%s: --max-seconds %d below the %d s period" % (where, limit, period))
            check(deadline is not None and limit < deadline < period,
                  "%s: activeDeadlineSeconds %s between --max-seconds and the period" % (where, deadline))
            check(container.get("securityContext", {}).get("readOnlyRootFilesystem") is True,
                  "%s: read-only root file system" % where)
            check("limits" in container.get("resources", {}), "%s: resource limits" % where)
            sources = container.get("envFrom", [])
            wanted = {("ConfigMap", "streampreview-config"), ("Secret", "streampreview-secrets")}
            used = {("ConfigMap", s["configMapRef"]["name"]) for s in sources if "configMapRef" in s}
            used |= {("Secret", s["secretRef"]["name"]) for s in sources if "secretRef" in s}
            check(wanted <= used, "%s: environment from streampreview-config and streampreview-secrets" % where)
            check(used <= names, "%s: every ConfigMap/Secret it reads is defined in deploy/kubernetes" % where)


def systemd(folder):
    for timer_path in sorted(folder.glob("*.timer")):
        timer = configparser.ConfigParser(strict=False, interpolation=None)
        timer.optionxform = str
        timer.read(timer_path)
        service_name = timer["Timer"].get("Unit", timer_path.stem + ".service")
        calendar = timer["Timer"].get("OnCalendar", "")
        every = re.fullmatch(r"\*:0/(\d+)", calendar)
        check(every is not None, "%s: OnCalendar every N minutes (%s)" % (timer_path.name, calendar))
        period = int(every.group(1)) * 60 if every else 0
        check(timer["Timer"].get("Persistent") == "true", "%s: Persistent=true" % timer_path.name)
        check("RandomizedDelaySec" in timer["Timer"], "%s: RandomizedDelaySec" % timer_path.name)
        service = configparser.ConfigParser(strict=False, interpolation=None)
        service.optionxform = str
        service.read(folder / service_name)
        section = service["Service"] if service.has_section("Service") else {}
        check(section.get("Type") == "oneshot", "%s: Type=oneshot" % service_name)
        limit = max_seconds([section.get("ExecStart", "")])
        timeout = seconds(section.get("TimeoutStartSec"))
        check(limit < period, "%s: --max-seconds %d below the timer's %d s period" % (service_name, limit, period))
        check(timeout is not None and limit < timeout < period,
              "%s: TimeoutStartSec %s between --max-seconds and the period" % (service_name, timeout))
        success = section.get("SuccessExitStatus", "").split()
        check(not {"69", "75"} & set(success), "%s: exits 69 and 75 stay failures" % service_name)
        check(section.get("User") not in (None, "", "root"), "%s: runs as a non-root user" % service_name)


def main():
    folder = Path(sys.argv[1])
    kubernetes(folder / "kubernetes")
    systemd(folder)
    if not FAILURES:
        print("ok   %d checks of the sweeper's bounds, security and configuration (check.py)" % len(PASSED))
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
