#!/bin/sh
# List merged pull requests since the last tag.
tag=$(git describe --tags --abbrev=0)
git log "$tag"..HEAD --merges --format='%s'
