#!/usr/bin/env bash
set -euo pipefail
branch="${1:?usage: deploy.sh <branch>}"
echo "Deploying $branch to preview"
