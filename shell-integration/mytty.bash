# mytty shell integration for bash.
#
# Panes that mytty creates load this automatically. For panes you open yourself with tmux's
# keys, `mytty shell-integration install bash` adds to ~/.bashrc the line
#   [ -n "$TMUX" ] && . /path/to/shell-integration/mytty.bash
# It gives the pane its mytty identity (`mytty-ctl env`), keeps mytty-ctl on PATH, marks the
# prompt with OSC 133 (A prompt, B input, C output, D;<exit> finished) and the directory with
# OSC 7, and tells the controller "command finished with exit N in <cwd>" by appending one
# line to $MYTTY_HOME/shell/<surface>.ev. Everything that runs at a prompt is a bash builtin:
# no process is forked per prompt, and nothing waits for the controller (a missing one is
# simply not told). Set MYTTY_SHELL_OSC133=0 to keep the marks off (the events still flow).
# ~/.profile may hold the line too (tmux's login bash reads it), and a POSIX sh reads that
# file as well: leave before sh parses the bash below (a separate command, so it runs first).
[ -n "${BASH_VERSION:-}" ] || return 0
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

# The pane's initial command runs once, from the first prompt, when the shell is fully set up.
if [ -n "${MYTTY_LAUNCH_FILE:-}" ]; then
  if [ -r "$MYTTY_LAUNCH_FILE" ]; then
    __mytty_launch=$(cat -- "$MYTTY_LAUNCH_FILE"; printf x)
    __mytty_launch=${__mytty_launch%x}
    rm -f -- "$MYTTY_LAUNCH_FILE"
  fi
  unset MYTTY_LAUNCH_FILE
fi

__mytty_ran=          # set by PS0 (below) when a command line really runs
__mytty_osc=          # non-empty: we emit OSC 133 (decided at the first prompt)
__mytty_started=      # the first prompt has been seen
__mytty_status=0      # exit status of the last command line
__mytty_pwd=          # the directory __mytty_pwd_enc encodes
__mytty_pwd_enc=
__mytty_ps1_mark='\[\e]133;B\a\]'
__mytty_ps0_flag='${__mytty_ran:$((__mytty_ran=1)):0}'   # arithmetic in an expansion: no fork
__mytty_ps0=$__mytty_ps0_flag

# Percent-encode $1 (bytewise, RFC 3986 unreserved and "/" stay) into __mytty_pwd_enc.
__mytty_encode_pwd() {
  local LC_ALL=C __s=$1 __out= __c __i
  for (( __i = 0; __i < ${#__s}; __i++ )); do
    __c=${__s:__i:1}
    case $__c in
      [a-zA-Z0-9/._~-]) __out+=$__c ;;
      *) printf -v __c '%%%02X' "'$__c"; __out+=$__c ;;
    esac
  done
  __mytty_pwd_enc=$__out
}

# Append one event line for the controller; silent and non-blocking when there is none.
__mytty_report() {
  local __id=${MYTTY_SURFACE_ID-} __cap=${MYTTY_EVENT_CAPABILITY-} __sock=${MYTTY_EVENT_SOCKET-}
  [[ -n $__id && -n $__cap && $__sock == /* ]] || return 0
  [[ $__id != *[!A-Za-z0-9-]* && $__cap != *[!A-F0-9]* ]] || return 0
  local __dir=${__sock%/*}/shell
  [[ -d $__dir && -O $__dir ]] || return 0
  local __f=$__dir/$__id.ev
  [[ -f $__f || ! -e $__f ]] || return 0   # never a FIFO someone left there: it could block
  [[ -e $__f ]] || __mytty_create_private "$__f" || return 0
  { printf '%s %s %s %s %s\n' "$1" "$2" "${EPOCHREALTIME:--}" "$__cap" "$__mytty_pwd_enc" \
      >>"$__f"; } 2>/dev/null
}

# Create the event file 0600 whatever the umask (it holds the pane's capability): the umask
# is read from /proc and put back with builtins only, so even this first time nothing forks.
__mytty_create_private() {
  local __k __v __old=
  while IFS=$': \t' read -r __k __v; do
    [[ $__k == Umask ]] && { __old=$__v; break; }
  done </proc/$$/status 2>/dev/null
  [[ -n $__old ]] || return 1   # no way to put the umask back: no file others might read
  umask 077
  { : >>"$1"; } 2>/dev/null
  umask "$__old"
}

# Does something else in this shell already mark prompts (then we don't mark them twice)?
__mytty_decide_osc() {
  __mytty_osc=1
  case ${MYTTY_SHELL_OSC133-} in 0|no|off|false) __mytty_osc=; return ;; esac
  local __all="${PS0-}${PS1-}"
  [[ -n ${PROMPT_COMMAND+x} ]] && __all+="${PROMPT_COMMAND[*]}"
  if [[ $__all == *'133;'* ]]; then __mytty_osc=; return; fi
  local __f
  for __f in __vsc_prompt_cmd __wezterm_semantic_precmd __ghostty_precmd _ksi_prompt_command \
             __iterm2_prompt_command; do
    if declare -F "$__f" >/dev/null; then __mytty_osc=; return; fi
  done
}

__mytty_set_status() { return "$1"; }   # $? for what runs next; "$2" keeps $_ for it

# First in PROMPT_COMMAND: report what finished, then mark the prompt's start.
__mytty_prompt_start() {
  local __st=$? __last=${1-}
  if [[ -z $__mytty_started ]]; then
    __mytty_started=1
    __mytty_decide_osc
    if [[ -n $__mytty_osc ]]; then __mytty_ps0='\e]133;C\a'$__mytty_ps0_flag; fi
    if [[ -n ${__mytty_launch+x} ]]; then
      local __text=$__mytty_launch
      unset __mytty_launch
      [[ -n $__mytty_osc ]] && printf '\e]133;C\a'
      eval "$__text"
      __st=$?
      __mytty_ran=1
    fi
  fi
  if [[ $PWD != "$__mytty_pwd" ]]; then
    __mytty_pwd=$PWD
    __mytty_encode_pwd "$PWD"
  fi
  if [[ -n $__mytty_ran ]]; then
    __mytty_ran=
    __mytty_status=$__st
    [[ -n $__mytty_osc ]] && printf '\e]133;D;%s\a' "$__st"
    __mytty_report D "$__st"
  elif [[ $__mytty_started == 1 ]]; then
    __mytty_report P -   # the shell's first prompt: the controller learns the directory
  fi
  __mytty_started=2
  printf '\e]7;file://%s%s\a' "${HOSTNAME-}" "$__mytty_pwd_enc"
  [[ -n $__mytty_osc ]] && printf '\e]133;A\a'
  __mytty_set_status "$__st" "$__last"
}

# Last in PROMPT_COMMAND: prompt tools (starship) rebuild PS1/PS0 in theirs; put our marks back.
__mytty_prompt_end() {
  local __st=$? __last=${1-}
  if [[ -n $__mytty_osc && ${PS1-} != *"$__mytty_ps1_mark" ]]; then PS1=${PS1-}$__mytty_ps1_mark; fi
  [[ ${PS0-} == *"$__mytty_ps0"* ]] || PS0=${PS0-}$__mytty_ps0
  __mytty_set_status "$__st" "$__last"
}

fi

# The hooks, in PROMPT_COMMAND unless they are there already (sourcing again after something
# replaced PROMPT_COMMAND puts them back). Its form is kept: an array (bash 5.1+) stays an
# array, a string stays a string.
if [[ -n ${__mytty_bash_loaded-} && "${PROMPT_COMMAND[*]-}" != *__mytty_prompt_start* ]]; then
  if (( BASH_VERSINFO[0] > 5 || (BASH_VERSINFO[0] == 5 && BASH_VERSINFO[1] >= 1) )) \
     && [[ -n ${PROMPT_COMMAND+x} && ${PROMPT_COMMAND@a} == *a* ]]; then
    PROMPT_COMMAND=('__mytty_prompt_start "$_"' "${PROMPT_COMMAND[@]}" '__mytty_prompt_end "$_"')
  else
    PROMPT_COMMAND=$'__mytty_prompt_start "$_"\n'"${PROMPT_COMMAND:+$PROMPT_COMMAND$'\n'}"'__mytty_prompt_end "$_"'
  fi
fi
