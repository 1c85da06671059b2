# make_venv PYTHON DIR: make sure DIR is a working virtual environment of PYTHON. Sourced by
# _bootstrap.sh (and by its test); needs as_root only when python3-venv must be installed.
make_venv() {
  local python=$1 venv=$2 venv_err
  [ -x "$venv/bin/python" ] && return 0
  # Something is in the way but is not a working venv. A dangling or looping symlink and a venv
  # whose interpreter is gone (Python upgraded, copied from another machine) are ours to replace;
  # anything else might be the user's, so stop and say what it is instead of deleting it.
  if [ -L "$venv" ] && [ ! -e "$venv" ]; then
    echo "mytty: $venv is a broken symlink (-> $(readlink "$venv")); replacing it" >&2
    rm -f "$venv"
  elif [ -f "$venv/pyvenv.cfg" ]; then
    echo "mytty: $venv has no working Python; recreating it" >&2
    rm -rf "$venv"
  elif [ -e "$venv" ] || [ -L "$venv" ]; then
    echo "mytty: $venv exists but is not a Python virtual environment; move it away or set MYTTY_VENV" >&2
    return 1
  fi
  echo "mytty: creating a Python virtual environment in $venv" >&2
  if venv_err=$("$python" -m venv "$venv" 2>&1); then
    return 0
  fi
  rm -rf "$venv" # a half-made venv would make the retry fail with "File exists"
  case $venv_err in
    *ensurepip* | *python3*-venv*)
      echo "mytty: '$python -m venv' needs the python3-venv package; installing it" >&2
      as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null
      "$python" -m venv "$venv"
      ;;
    *)
      echo "mytty: '$python -m venv $venv' failed: $venv_err" >&2
      return 1
      ;;
  esac
}
