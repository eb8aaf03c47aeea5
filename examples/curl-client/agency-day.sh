#!/bin/sh
# A hand-written agency client, curl only: one agency day (start a run, merge, demerge, delete a
# submission, end the run) against the API at BASE_URL, with the key in ISWC_SUBSCRIPTION_KEY and the
# data of the sandbox's client profile (fixtures/targets/sandbox-client.json). A 429 or 503 is retried
# after its Retry-After, three times at most (curl --retry); any other error stops the day (exit 22).
#
#   ISWC_SUBSCRIPTION_KEY=... sh examples/curl-client/agency-day.sh http://127.0.0.1:8099
set -eu
base=${1:?usage: sh examples/curl-client/agency-day.sh BASE_URL}
base=${base%/}   # no trailing slash: $base/agent/run, never //agent/run
key=${ISWC_SUBSCRIPTION_KEY:?set ISWC_SUBSCRIPTION_KEY to the key (against the sandbox: the value of ISWC_SANDBOX_KEY)}

# call METHOD PATH [curl options]: prints the answer's body; fails on an error status.
call() {
  method=$1 path=$2
  shift 2
  curl --silent --show-error --fail-with-body --retry 3 -X "$method" "$base$path" \
    -H "Ocp-Apim-Subscription-Key: $key" -H 'User-Agent: curl-agency-day/1.0' "$@"
}
run() { call POST /agent/run -H 'Content-Type: application/json' -d "{\"agentVersion\":\"curl-agency-day 1.0\",\"agencyCode\":\"128\",$1}"; }
counters='"updateRecordCount":0,"newRecordCount":0,"overallRejected":0,"businessRejectionCount":0,"technicalRejectionCount":0'

# 4.1: a run starts without runId; the answer names it (2.2).
runId=$(run "$counters,\"overallSent\":0,\"successfulCount\":0" | sed -E 's/.*"runId" *: *"([^"]*)".*/\1/')
# 4.2: a merge not yet done (merges[0] of the profile).
call POST '/iswc/merge?preferredIswc=T3100000004&agency=128' -H 'Content-Type: application/json' \
  -d '{"iswcs":["T3100000015"],"agencyWorks":[{"agencyCode":"128","agencyWorkCode":"IM00700100"}]}' >/dev/null
# 4.4: a work already merged (demerges[0]).
call DELETE '/iswc/merge?preferredIswc=T3200000002&agency=128&workcode=IM00800100' >/dev/null
# 4.3: a submission that exists (submissions[0]), with the profile's reasonCode.
call DELETE '/submission?preferredIswc=T3300000000&agency=128&workcode=IM00900100&sourceDb=128&reasonCode=EdiV1' >/dev/null
# 4.1: the run ends with its runId and its counters.
run "$counters,\"overallSent\":3,\"successfulCount\":3,\"runId\":\"$runId\"" >/dev/null
echo "run $runId: started, merged, demerged, deleted, ended"
