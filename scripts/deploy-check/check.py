"""What the schemas cannot check in deploy/ (run by scripts/test-deploy.sh with its venv).

The sweeper's runs must end inside their period (a cron run never overlaps the next), two runs
of one scheduler must never run at once, the job runs as non-root on a read-only root file
system with every setting from streampreview-config / streampreview-secrets, and exits 69 and 75
must stay failures (they are what alerting sees). The API Deployment drains before it is killed,
is probed on /healthz and /readyz, runs locked down, is scraped on its metrics port, and its
Service, autoscaler and disruption budget select it. Every variable `serve --help` and
`sweep --help` name is set in config.yaml or listed there as left default, credentials only in
the Secret, so the manifests cannot drift from the binary. The Sentinel URL names the example's
sentinels, master and password.
Usage: check.py DEPLOY_DIR HELP_TEXT... (the output of `streampreview serve --help` and
`streampreview sweep --help`, in files). Prints each failed check, or one line; exits 1 when any fails.
"""

import base64
import configparser
import re
import subprocess
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


def load(folder):
    return [doc for path in sorted(folder.glob("*.yaml")) for doc in yaml.safe_load_all(path.read_text()) if doc]


def kubernetes(documents, config):
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
            check_data_dir(pod, container, arguments, config, where)

# Variables whose values are credentials: only the Secret may hold them (the help names the storage
# ones under "Credentials"; the Redis URL carries the password, the token secret signs tokens).
CREDENTIALS = {
    "STREAMPREVIEW_REDIS_URL", "STREAMPREVIEW_TOKEN_SECRET", "STREAMPREVIEW_S3_ACCESS_KEY_ID",
    "STREAMPREVIEW_S3_SECRET_ACCESS_KEY", "STREAMPREVIEW_S3_SESSION_TOKEN", "STREAMPREVIEW_GCS_HMAC_ACCESS_ID",
    "STREAMPREVIEW_GCS_HMAC_SECRET",
}
LEFT_DEFAULT = re.compile(r"^\s*#\s*left default:\s*(STREAMPREVIEW_[A-Z0-9_]+)\s+-\s+(\S.*)$", re.M)


def find(documents, kind, name):
    return next((doc for doc in documents if doc["kind"] == kind and doc["metadata"]["name"] == name), None)


def secret_values(secret):
    values = dict((secret or {}).get("stringData") or {})
    for key, encoded in ((secret or {}).get("data") or {}).items():
        values[key] = base64.b64decode(encoded).decode()
    return values


def settings(folder, documents, help_texts):
    """Every STREAMPREVIEW_* variable of serve/sweep --help is set or listed as left default."""
    known = set(re.findall(r"STREAMPREVIEW_[A-Z0-9_]+", "\n".join(help_texts)))
    check(len(known) > 20, "help texts name the variables (%d found)" % len(known))
    check(CREDENTIALS <= known, "every credential variable this check knows is in --help (%s)"
          % ", ".join(sorted(CREDENTIALS - known)))
    config_map = find(documents, "ConfigMap", "streampreview-config") or {}
    secret = find(documents, "Secret", "streampreview-secrets")
    check(bool(config_map), "ConfigMap streampreview-config defined")
    check(secret is not None, "Secret streampreview-secrets defined")
    in_config = {key for key in (config_map.get("data") or {}) if key.startswith("STREAMPREVIEW_")}
    in_secret = {key for key in secret_values(secret) if key.startswith("STREAMPREVIEW_")}
    left = {}
    for path in sorted(folder.glob("*.yaml")):
        for name, why in LEFT_DEFAULT.findall(path.read_text()):
            check(name not in left, "%s listed as left default once" % name)
            left[name] = why
    for name in sorted(known):
        places = [place for place, names in (("ConfigMap", in_config), ("Secret", in_secret), ("left default", left))
                  if name in names]
        check(len(places) == 1, "%s (in --help): set in the ConfigMap or the Secret, or listed as left default, "
              "exactly once (found: %s)" % (name, ", ".join(places) or "nowhere"))
    for name in sorted((in_config | in_secret | set(left)) - known):
        check(False, "%s in config.yaml is not a variable of serve or sweep (--help)" % name)
    for name in sorted(CREDENTIALS & in_config):
        check(False, "%s is a credential: the Secret only, never the ConfigMap" % name)
    for doc in documents:
        for container in (pod_spec(doc) or {}).get("containers", []):
            for variable in container.get("env", []):
                if variable["name"].startswith("STREAMPREVIEW_"):
                    check(False, "%s %s container %s: %s comes from config.yaml, not env"
                          % (doc["kind"], doc["metadata"]["name"], container["name"], variable["name"]))
    return dict(config_map.get("data") or {}), secret_values(secret)


def pod_spec(doc):
    if doc["kind"] in ("Deployment", "StatefulSet"):
        return doc["spec"]["template"]["spec"]
    if doc["kind"] == "CronJob":
        return doc["spec"]["jobTemplate"]["spec"]["template"]["spec"]
    return None


def flag(arguments, name):
    match = re.search(r"--%s[ =](\S+)" % name, " ".join(arguments))
    return match.group(1) if match else None


def check_data_dir(pod, container, arguments, config, where):
    """The data dir streampreview creates is on a writable emptyDir (the root file system is read-only)."""
    data_dir = flag(arguments, "data-dir") or config.get("STREAMPREVIEW_DATA_DIR", "./.streampreview")
    empty = {volume["name"] for volume in pod.get("volumes", []) if "emptyDir" in volume}
    mounts = [mount["mountPath"].rstrip("/") for mount in container.get("volumeMounts", [])
              if mount["name"] in empty and not mount.get("readOnly")]
    check(any(data_dir.startswith(path + "/") or data_dir == path for path in mounts),
          "%s: data dir %s on a writable emptyDir (%s)" % (where, data_dir, ", ".join(mounts) or "none"))


def selects(selector, labels):
    wanted = selector.get("matchLabels", selector)  # a workload's {matchLabels: ...}, or a Service's labels
    return bool(wanted) and all(labels.get(key) == value for key, value in wanted.items())


def number(config, name, default):
    try:
        return int(config.get(name, default))
    except ValueError:
        check(False, "%s is a number (%r)" % (name, config.get(name)))
        return default


def serve_deployment(documents, config):
    deployments = [doc for doc in documents if doc["kind"] == "Deployment"
                   and any("serve" in c.get("command", []) + c.get("args", []) for c in pod_spec(doc)["containers"])]
    check(len(deployments) == 1, "kubernetes: one Deployment running streampreview serve")
    drain = number(config, "STREAMPREVIEW_DRAIN_DELAY", 0)
    shutdown = number(config, "STREAMPREVIEW_SHUTDOWN_TIMEOUT", 25)
    port = number(config, "STREAMPREVIEW_PORT", 8080)
    metrics = config.get("STREAMPREVIEW_METRICS_LISTEN", "")
    metrics_port = int(metrics.rsplit(":", 1)[1]) if ":" in metrics else None
    for deployment in deployments:
        name = "Deployment %s" % deployment["metadata"]["name"]
        template = deployment["spec"]["template"]
        pod = template["spec"]
        labels = template["metadata"].get("labels", {})
        annotations = template["metadata"].get("annotations", {})
        check(selects(deployment["spec"]["selector"], labels), "%s: its selector matches its pods" % name)
        check(deployment["spec"].get("replicas", 1) >= 2, "%s: at least 2 replicas" % name)
        grace = pod.get("terminationGracePeriodSeconds", 30)
        check(grace > drain + shutdown, "%s: terminationGracePeriodSeconds %d above drain delay %d + shutdown "
              "timeout %d" % (name, grace, drain, shutdown))
        security = pod.get("securityContext", {})
        check(security.get("runAsNonRoot") is True and security.get("runAsUser", 0) > 0,
              "%s: runAsNonRoot with a non-zero runAsUser" % name)
        check(security.get("seccompProfile", {}).get("type") == "RuntimeDefault", "%s: seccomp RuntimeDefault" % name)
        check(pod.get("automountServiceAccountToken") is False, "%s: no service account token" % name)
        check(metrics_port is not None and metrics_port != port,
              "%s: STREAMPREVIEW_METRICS_LISTEN on its own port (%r)" % (name, metrics))
        check(annotations.get("prometheus.io/scrape") == "true" and annotations.get("prometheus.io/path") == "/metrics"
              and annotations.get("prometheus.io/port") == str(metrics_port),
              "%s: prometheus.io annotations scrape /metrics on port %s" % (name, metrics_port))
        for container in pod["containers"]:
            where = "%s container %s" % (name, container["name"])
            ports = {p.get("name"): p["containerPort"] for p in container.get("ports", [])}
            check(ports.get("http") == port, "%s: port http is STREAMPREVIEW_PORT %d" % (where, port))
            check(metrics_port in ports.values(), "%s: the metrics port %s is a container port" % (where, metrics_port))
            for probe, path in (("livenessProbe", "/healthz"), ("readinessProbe", "/readyz"),
                                ("startupProbe", "/healthz")):
                get = container.get(probe, {}).get("httpGet", {})
                check(get.get("path") == path and get.get("port") in ("http", port),
                      "%s: %s GET %s on the main port" % (where, probe, path))
            readiness = container.get("readinessProbe", {})
            noticed = readiness.get("periodSeconds", 10) * readiness.get("failureThreshold", 3)
            check(drain > noticed, "%s: drain delay %d s above the %d s the readiness probe needs to see a 503"
                  % (where, drain, noticed))
            context = container.get("securityContext", {})
            check(context.get("readOnlyRootFilesystem") is True, "%s: read-only root file system" % where)
            check(context.get("allowPrivilegeEscalation") is False, "%s: no privilege escalation" % where)
            check(context.get("capabilities", {}).get("drop") == ["ALL"], "%s: drops ALL capabilities" % where)
            resources = container.get("resources", {})
            check(all(kind in resources.get(part, {}) for part in ("requests", "limits") for kind in ("cpu", "memory")),
                  "%s: cpu and memory requests and limits" % where)
            sources = container.get("envFrom", [])
            check({s["configMapRef"]["name"] for s in sources if "configMapRef" in s} == {"streampreview-config"}
                  and {s["secretRef"]["name"] for s in sources if "secretRef" in s} == {"streampreview-secrets"},
                  "%s: environment from streampreview-config and streampreview-secrets" % where)
            check_data_dir(pod, container, container.get("command", []) + container.get("args", []), config, where)
            named = set(ports) | set(ports.values())
            for service in (doc for doc in documents if doc["kind"] == "Service"
                            and selects(doc["spec"].get("selector", {}), labels)):
                for service_port in service["spec"]["ports"]:
                    check(service_port.get("targetPort", service_port["port"]) in named,
                          "Service %s: port %s targets a port of %s" % (service["metadata"]["name"],
                                                                        service_port.get("name"), where))
                    check(service_port.get("targetPort") not in ("metrics", metrics_port),
                          "Service %s: does not expose the metrics port" % service["metadata"]["name"])
        services = [doc for doc in documents if doc["kind"] == "Service" and selects(doc["spec"].get("selector", {}), labels)]
        check(len(services) >= 1, "%s: a Service selects its pods" % name)
        autoscalers = [doc for doc in documents if doc["kind"] == "HorizontalPodAutoscaler"
                       and doc["spec"]["scaleTargetRef"]["kind"] == "Deployment"
                       and doc["spec"]["scaleTargetRef"]["name"] == deployment["metadata"]["name"]]
        check(len(autoscalers) == 1, "%s: one HorizontalPodAutoscaler scales it" % name)
        for autoscaler in autoscalers:
            check(autoscaler["apiVersion"] == "autoscaling/v2" and autoscaler["spec"].get("minReplicas", 1) >= 2
                  and any(m.get("resource", {}).get("name") == "cpu" for m in autoscaler["spec"].get("metrics", [])),
                  "%s: autoscaling/v2 on CPU, at least 2 replicas" % name)
        budgets = [doc for doc in documents if doc["kind"] == "PodDisruptionBudget"
                   and selects(doc["spec"].get("selector", {}), labels)]
        check(len(budgets) == 1, "%s: one PodDisruptionBudget selects its pods" % name)


def sentinel(documents, config, secret):
    """A redis-sentinel:// URL names sentinel pods of a StatefulSet here, its master and its password;
    every replica the sentinels may promote confirms each acknowledged write (WAIT)."""
    url = secret.get("STREAMPREVIEW_REDIS_URL", "")
    match = re.fullmatch(r"redis-sentinel://(?:([^@]*)@)?([^/#]+)(?:/\d*)?#(.+)", url)
    if not url.startswith("redis-sentinel://"):
        return
    check(match is not None, "STREAMPREVIEW_REDIS_URL is a redis-sentinel:// URL with #MASTER")
    if not match:
        return
    password, hosts, master = match.groups()
    sets = {doc["metadata"]["name"]: doc for doc in documents if doc["kind"] == "StatefulSet"}
    headless = {doc["metadata"]["name"] for doc in documents
                if doc["kind"] == "Service" and doc["spec"].get("clusterIP") == "None"}
    for host in hosts.split(","):
        name, _, port = host.partition(":")
        pod, _, service = name.partition(".")
        owner = next((s for s in sets.values() if pod.rsplit("-", 1)[0] == s["metadata"]["name"]), None)
        index = pod.rsplit("-", 1)[-1]
        ok = (owner is not None and index.isdigit() and int(index) < owner["spec"]["replicas"]
              and owner["spec"]["serviceName"] == service.split(".")[0] and service.split(".")[0] in headless
              and int(port or 26379) in [p["containerPort"] for c in owner["spec"]["template"]["spec"]["containers"]
                                         for p in c.get("ports", [])])
        check(ok, "STREAMPREVIEW_REDIS_URL: sentinel %s is a pod of a StatefulSet here, behind its headless Service"
              % host)
    for doc in documents:
        for key, script in ((doc.get("data") or {}).items() if doc["kind"] == "ConfigMap" else []):
            if key.endswith(".sh"):
                syntax = subprocess.run(["sh", "-n"], input=script, capture_output=True, text=True)
                check(syntax.returncode == 0, "ConfigMap %s: %s parses with sh -n %s"
                      % (doc["metadata"]["name"], key, syntax.stderr.strip()))
    texts = "\n".join(str(value) for doc in documents if doc["kind"] == "ConfigMap"
                      for value in (doc.get("data") or {}).values())
    check(re.search(r"sentinel monitor %s " % re.escape(master), texts) is not None,
          "STREAMPREVIEW_REDIS_URL: master %s is the one the sentinels monitor" % master)
    sentinel_sets = {host.partition(".")[0].rsplit("-", 1)[0] for host in hosts.split(",")}
    owners = {sets[name]["metadata"]["labels"].get("app.kubernetes.io/name") for name in sentinel_sets if name in sets}
    data = [s for s in sets.values() if s["metadata"]["labels"].get("app.kubernetes.io/name") in owners
            and s["metadata"]["labels"].get("app.kubernetes.io/component") == "data"]
    check(len(data) == 1, "STREAMPREVIEW_REDIS_URL: one data-node StatefulSet beside its sentinels")
    for nodes in data:
        wait = number(config, "STREAMPREVIEW_REDIS_WAIT_REPLICAS", 0)
        check(wait == nodes["spec"]["replicas"] - 1,
              "STREAMPREVIEW_REDIS_WAIT_REPLICAS %d is every replica of StatefulSet %s (%d)"
              % (wait, nodes["metadata"]["name"], nodes["spec"]["replicas"] - 1))
    passwords = {value for doc in documents if doc["kind"] == "Secret" and doc["metadata"]["name"] != "streampreview-secrets"
                 for key, value in secret_values(doc).items() if key == "REDIS_PASSWORD"}
    check(not passwords or password in passwords, "STREAMPREVIEW_REDIS_URL: the password is the data nodes' REDIS_PASSWORD")


def systemd(folder):
    for service_path in sorted(folder.glob("*.service")):
        service = configparser.ConfigParser(strict=False, interpolation=None)
        service.optionxform = str
        service.read(service_path)
        section = service["Service"] if service.has_section("Service") else {}
        command = section.get("ExecStart", "").split()
        if "serve" not in command:
            continue
        drain = int(flag(command, "drain-delay") or 0)
        shutdown = int(flag(command, "shutdown-timeout") or 25)
        stop = seconds(section.get("TimeoutStopSec"))
        check(stop is not None and stop > drain + shutdown,
              "%s: TimeoutStopSec %s above --drain-delay %d + --shutdown-timeout %d"
              % (service_path.name, stop, drain, shutdown))
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
    if len(sys.argv) < 3:
        print(__doc__.strip().splitlines()[-2], file=sys.stderr)
        return 64
    folder = Path(sys.argv[1])
    help_texts = [Path(path).read_text() for path in sys.argv[2:]]
    documents = load(folder / "kubernetes")
    config, secret = settings(folder / "kubernetes", documents, help_texts)
    kubernetes(documents, config)
    serve_deployment(documents, config)
    sentinel(documents, config, secret)
    systemd(folder)
    if not FAILURES:
        print("ok   %d checks of the sweeper's bounds, the API Deployment, the settings against --help and the "
              "Sentinel URL (check.py)" % len(PASSED))
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
