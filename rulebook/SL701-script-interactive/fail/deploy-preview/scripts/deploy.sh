#!/usr/bin/env bash
set -euo pipefail
read -rp "Branch to deploy: " branch
echo "Deploying $branch to preview"
