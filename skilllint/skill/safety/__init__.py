"""Containment and filesystem safety (SL40x): the link traces and paths that show a package
reaching outside itself, looping, or holding what is not a regular file."""
