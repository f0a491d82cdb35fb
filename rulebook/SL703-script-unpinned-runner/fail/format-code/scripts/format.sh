#!/usr/bin/env bash
set -euo pipefail
npx --yes prettier --write .
