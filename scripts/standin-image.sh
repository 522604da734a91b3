# Sourced by scripts/build-*-standin.sh: whether an image with the stand-in's tag is the one this recipe
# builds. Each stand-in carries a label with a digest of the script that built it and of its inputs
# (versions), so an image that merely has the tag (pulled, built by hand, from an older recipe) is rebuilt,
# never silently used.
STANDIN_LABEL=catalog-search.standin.recipe

# standin_recipe SCRIPT [INPUT...]: the digest of the building script's text and its inputs.
standin_recipe() {
  { cat "$1"; cat "$(dirname "$1")/standin-image.sh"; shift; printf '%s\n' "$@"; } | sha256sum | cut -c1-32
}

# standin_current IMAGE RECIPE: succeeds when IMAGE exists and was built from RECIPE; says why not otherwise.
standin_current() {
  local found
  if ! found="$(docker image inspect --format "{{ index .Config.Labels \"$STANDIN_LABEL\" }}" "$1" 2>/dev/null)"; then
    return 1
  fi
  if [[ "$found" == "$2" ]]; then
    return 0
  fi
  echo "image $1 exists but was not built from this recipe (label $STANDIN_LABEL: '${found:-none}', expected '$2'): rebuilding"
  return 1
}
