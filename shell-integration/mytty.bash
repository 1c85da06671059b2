# mytty shell integration for bash.
#
# Panes that mytty creates load this automatically. For panes you open yourself with tmux's
# keys, add to ~/.bashrc:   [ -n "$TMUX" ] && . /path/to/shell-integration/mytty.bash
# It gives the pane its mytty identity (`mytty-ctl env`) and keeps mytty-ctl on PATH.
if [ -z "${__mytty_bash_loaded:-}" ]; then
__mytty_bash_loaded=1

# A hand-made pane has no identity yet: ask the controller (it checks we really are in a pane).
if [ -z "${MYTTY_SURFACE_ID:-}" ] && [ -n "${TMUX:-}" ] && [ -n "${MYTTY_CTL_BIN:-}" ] \
   && [ -x "$MYTTY_CTL_BIN" ]; then
  __mytty_env=$("$MYTTY_CTL_BIN" env 2>/dev/null) && eval "$__mytty_env"
  unset __mytty_env
fi

if [ -n "${MYTTY_CTL_BIN:-}" ]; then
  case ":$PATH:" in
    *":${MYTTY_CTL_BIN%/*}:"*) ;;
    *) export PATH="$PATH:${MYTTY_CTL_BIN%/*}" ;;
  esac
fi

# Run the pane's initial command once, at the first prompt, when the shell is fully set up.
if [ -n "${MYTTY_LAUNCH_FILE:-}" ]; then
  if [ -r "$MYTTY_LAUNCH_FILE" ]; then
    __mytty_launch=$(cat -- "$MYTTY_LAUNCH_FILE"; printf x)
    __mytty_launch=${__mytty_launch%x}
    rm -f -- "$MYTTY_LAUNCH_FILE"
    __mytty_saved_prompt_command=${PROMPT_COMMAND:-}
    __mytty_run_launch() {
      PROMPT_COMMAND=$__mytty_saved_prompt_command
      unset __mytty_saved_prompt_command
      local __text=$__mytty_launch
      unset __mytty_launch
      unset -f __mytty_run_launch
      eval "$__text"
      # Let the user's own prompt command run as usual for this first prompt.
      [ -n "$PROMPT_COMMAND" ] && eval "$PROMPT_COMMAND"
    }
    PROMPT_COMMAND=__mytty_run_launch
  fi
  unset MYTTY_LAUNCH_FILE
fi
fi
