#!/usr/bin/env bash
set -euo pipefail
npx --yes prettier@3.3.3 --write .
