#!/usr/bin/env bash
# Deploy the web app: deploy.sh [--rollback] staging|production
set -euo pipefail
if [[ "${1:-}" == "--rollback" ]]; then
  shift
  exec kubectl rollout undo "deployment/web" --namespace "$1"
fi
kubectl set image "deployment/web" "web=registry.example.com/web:$(git rev-parse --short HEAD)" --namespace "$1"
kubectl rollout status "deployment/web" --namespace "$1" --timeout=5m
