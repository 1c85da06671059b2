# mytty shell integration for zsh.
#
# For panes you open yourself with tmux's keys, add to ~/.zshrc:
#   [[ -n $TMUX ]] && source /path/to/shell-integration/mytty.zsh
# It gives the pane its mytty identity (`mytty-ctl env`) and keeps mytty-ctl on PATH.
if [[ -z ${__mytty_zsh_loaded-} ]]; then
  __mytty_zsh_loaded=1
  # A hand-made pane has no identity yet: ask the controller (it checks we really are in a pane).
  if [[ -z ${MYTTY_SURFACE_ID-} && -n ${TMUX-} && -n ${MYTTY_CTL_BIN-} && -x $MYTTY_CTL_BIN ]]; then
    __mytty_env=$("$MYTTY_CTL_BIN" env 2>/dev/null) && eval "$__mytty_env"
    unset __mytty_env
  fi
  if [[ -n ${MYTTY_CTL_BIN-} && ":$PATH:" != *":${MYTTY_CTL_BIN:h}:"* ]]; then
    export PATH="$PATH:${MYTTY_CTL_BIN:h}"
  fi
fi
