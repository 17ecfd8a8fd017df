#!/usr/bin/env bash
# cloud-scheduler.sh: nightly retraining on Google Cloud: the Cloud Run job
# of cloudrun-job.yaml, executed every night at 02:30 UTC by Cloud Scheduler.
#
# Why a Cloud Run job rather than a Dataflow Flex Template: a Flex Template
# launches one pipeline and exits, while mtune's driver loops over the
# epochs, launching one Dataflow job per epoch and waiting for each, then
# gates (decoding the dev set itself) and promotes. The driver must live
# for the whole night, in a job.
#
# Airflow (Cloud Composer) users run the same image with the same arguments
# instead: KubernetesPodOperator(image=…/mtune:v1, arguments=[…the args of
# cloudrun-job.yaml…]), or CloudRunExecuteJobOperator on this job. There a
# templated "--run-id={{ ds }}" gives every attempt of one day the same
# night, so Airflow's retries resume it; retry on exit status 75 only
# where the operator can tell exit statuses apart.
#
# Uses the caller's gcloud credentials; reads and prints none. Run from
# anywhere: PROJECT=my-project REGION=europe-west1 scripts/schedule/cloud-scheduler.sh
set -euo pipefail

: "${PROJECT:?set PROJECT, the Google Cloud project}"
: "${REGION:?set REGION, e.g. europe-west1 (Cloud Run and Cloud Scheduler)}"
JOB=mtune-retrain
# Executes the job: needs roles/run.invoker on it, granted below.
INVOKER=${INVOKER:-mtune-scheduler@$PROJECT.iam.gserviceaccount.com}
here=$(cd "$(dirname "$0")" && pwd)

# Create or update the job (edit the image, bucket and flags in the YAML
# first).
gcloud run jobs replace "$here/cloudrun-job.yaml" --project "$PROJECT" --region "$REGION"

gcloud run jobs add-iam-policy-binding "$JOB" --project "$PROJECT" --region "$REGION" \
	--member "serviceAccount:$INVOKER" --role roles/run.invoker

# Every night at 02:30 UTC, POST …/jobs/mtune-retrain:run (Cloud Run Admin
# API v2) with an OAuth token of $INVOKER. Cloud Scheduler's own retries
# concern that call only, which returns as soon as the execution is created; the
# night's outcome is the execution's (gcloud run jobs executions list).
verb=create
if gcloud scheduler jobs describe "$JOB-nightly" --project "$PROJECT" --location "$REGION" >/dev/null 2>&1; then
	verb=update
fi
gcloud scheduler jobs "$verb" http "$JOB-nightly" --project "$PROJECT" --location "$REGION" \
	--schedule "30 2 * * *" --time-zone Etc/UTC \
	--uri "https://run.googleapis.com/v2/projects/$PROJECT/locations/$REGION/jobs/$JOB:run" \
	--http-method POST \
	--oauth-service-account-email "$INVOKER"
