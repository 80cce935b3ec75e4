#!/usr/bin/env bash
# Runs the end-to-end suites through a load balancer: with STREAMPREVIEW_TEST_REPLICAS=2 every
# ServiceProcess is replica A (embedded Redis on its data dir), replica B (a second `serve` on the same
# data dir and A's Redis) and Debian's nginx balancing round-robin over both; the tests talk to nginx,
# and both replicas sign URLs for it. LoadBalancerTests checks that both replicas answer.
# Builds nothing: run `swift build --build-tests` first (arguments go on to `swift test`).
#   scripts/test-replicas.sh [--scratch-path DIR]
#
# Excluded suites, and why:
#   ConformancePresignTests  starts no server (the SDKs' presigned URLs against our signer)
#   GracefulShutdownTests    signals the one server and watches its listener close; nginx sends to B
#   HostileInputTests        malformed request framing: nginx parses and answers it before a replica sees it
#   LifecycleTests           SIGTERM and restart of the one server; compares its stdout with baseURL
#   LocalStackFlowTests      needs LocalStack's network namespace (scripts/test-s3.sh)
#   MetricsTests             counters are per process: a scrape through nginx sees one replica's share
#   RedisOutageTests         stops and restarts the one Redis under a single server
#   ReplicaAgreementTests    starts its own two replicas and polls them directly
#   SentinelFailoverTests    kills Redis primaries under load; a suite of its own in the main run
#   SweepConcurrencyTests    already two serve processes on one data dir, driven directly
#   SweepCrashTests          kills sweep runs of the one server at random points
#   SweepRedisRestartTests   restarts the embedded Redis of the one server
#   UploadMemoryTests        measures the RSS of one server process
# Excluded tests of included suites:
#   oversizedDeclaredBodyIsRefusedBeforeItIsRead (ValidationErrorTests), badSignatureIsAnsweredOnTheHead,
#     putCutShortStoresNothing and concurrentPutIsRefusedOnItsHead (WriteOnceTests): nginx answers
#     `Expect: 100-continue` itself, before a replica has the request head, so the client sees its
#     100 Continue (and no temporary file exists yet, nor an upload in progress to refuse against)
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
"$repo/scripts/install-deps.sh" test  # nginx, among the test packages
[ -x /usr/sbin/nginx ] || { echo "test-replicas.sh: /usr/sbin/nginx is missing" >&2; exit 69; }

suites=(
  LoadBalancerTests
  AuthErrorTests CommitAndCacheTests HappyPathTests LikesAndSeenTests PendingUploadLimitEndToEndTests
  ProtobufTests RankingTests ReadmeWalkthroughTests SecretConfigurationTests SignedURLTests
  ValidationErrorTests WriteOnceTests
  SweepLifecycleTests SweepRaceTests SweepStorageFailureTests S3MotoFlowTests
  WebhookDeliveryTests
)
filter="EndToEndTests\\.($(IFS='|'; echo "${suites[*]}"))/"
cd "$repo"
skipped=(
  oversizedDeclaredBodyIsRefusedBeforeItIsRead badSignatureIsAnsweredOnTheHead putCutShortStoresNothing
  concurrentPutIsRefusedOnItsHead
)
skip="$(IFS='|'; echo "${skipped[*]}")"
# Every suite and test named must exist: a filter that matches nothing passes.
source "$repo/scripts/lib/test-filter.sh"
list_tests "$@"
patterns=()
for suite in "${suites[@]}"; do patterns+=("EndToEndTests\\.$suite/"); done
require_tests test-replicas.sh "${patterns[@]}" "${skipped[@]/%/\\(}"
STREAMPREVIEW_TEST_REPLICAS=2 exec "${SWIFT:-swift}" test --skip-build --filter "$filter" --skip "$skip" "$@"
