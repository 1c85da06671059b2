# mytty shell integration for zsh.
#
# Panes that mytty creates load this automatically (through ZDOTDIR, see zsh/.zshenv). For
# panes you open yourself with tmux's keys, `mytty shell-integration install zsh` adds to
# ~/.zshrc the line
#   [[ -n $TMUX ]] && source /path/to/shell-integration/mytty.zsh
# It gives the pane its mytty identity (`mytty-ctl env`), keeps mytty-ctl on PATH, marks the
# prompt with OSC 133 (A, B, C, D;<exit>) and the directory with OSC 7, and appends
# "command finished with exit N in <cwd>" to $MYTTY_HOME/shell/<surface>.ev for the
# controller. The prompt hooks use builtins only: no fork per prompt, never waiting for the
# controller. Set MYTTY_SHELL_OSC133=0 to keep the marks off (the events still flow).
if [[ -z ${__mytty_zsh_loaded-} ]]; then
  typeset -g __mytty_zsh_loaded=1
  # A hand-made pane has no identity yet: ask the controller (it checks we really are in a pane).
  if [[ -z ${MYTTY_SURFACE_ID-} && -n ${TMUX-} && -n ${MYTTY_CTL_BIN-} && -x $MYTTY_CTL_BIN ]]; then
    __mytty_env=$("$MYTTY_CTL_BIN" env 2>/dev/null) && eval "$__mytty_env"
    unset __mytty_env
  fi
  if [[ -n ${MYTTY_CTL_BIN-} && ":$PATH:" != *":${MYTTY_CTL_BIN:h}:"* ]]; then
    export PATH="$PATH:${MYTTY_CTL_BIN:h}"
  fi

  zmodload -F zsh/datetime p:EPOCHREALTIME 2>/dev/null   # a module, not a process
  typeset -g __mytty_ran= __mytty_osc= __mytty_started= __mytty_pwd= __mytty_pwd_enc=
  typeset -g __mytty_ps1_mark=$'%{\e]133;B\a%}'

  # Percent-encode $1 bytewise (RFC 3986 unreserved and "/" stay) into __mytty_pwd_enc.
  __mytty_encode_pwd() {
    emulate -L zsh
    setopt no_multibyte
    local s=$1 out= c
    local -i i
    for (( i = 1; i <= $#s; i++ )); do
      c=$s[i]
      case $c in
        ([a-zA-Z0-9/._~-]) out+=$c ;;
        (*) printf -v c '%%%02X' "'$c"; out+=$c ;;
      esac
    done
    __mytty_pwd_enc=$out
  }

  # Create the event file 0600 whatever the umask (it holds the pane's capability): the umask
  # is read from /proc and put back with builtins only, so even this first time nothing forks.
  __mytty_create_private() {
    emulate -L zsh
    local k v old=
    while IFS=$': \t' read -r k v; do
      [[ $k == Umask ]] && { old=$v; break }
    done </proc/$$/status 2>/dev/null
    [[ -n $old ]] || return 1   # no way to put the umask back: no file others might read
    umask 077
    { : >>$1 } 2>/dev/null
    umask $old
  }

  # Append one event line for the controller; silent and non-blocking when there is none.
  __mytty_report() {
    emulate -L zsh
    local id=${MYTTY_SURFACE_ID-} cap=${MYTTY_EVENT_CAPABILITY-} sock=${MYTTY_EVENT_SOCKET-}
    [[ -n $id && -n $cap && $sock == /* ]] || return 0
    [[ $id != *[^A-Za-z0-9-]* && $cap != *[^A-F0-9]* ]] || return 0
    local dir=${sock%/*}/shell
    [[ -d $dir && -O $dir ]] || return 0
    local f=$dir/$id.ev
    [[ -f $f || ! -e $f ]] || return 0   # never a FIFO someone left there: it could block
    [[ -e $f ]] || __mytty_create_private $f || return 0
    { print -r -- "$1 $2 ${EPOCHREALTIME:--} $cap $__mytty_pwd_enc" >>$f } 2>/dev/null
  }

  # Does something else already mark prompts (p10k's shell integration, a terminal's script)?
  __mytty_decide_osc() {
    emulate -L zsh
    __mytty_osc=1
    case ${MYTTY_SHELL_OSC133-} in (0|no|off|false) __mytty_osc=; return ;; esac
    [[ ${POWERLEVEL9K_TERM_SHELL_INTEGRATION-} == true ]] && { __mytty_osc=; return }
    local f all="${PS1-}${PROMPT-}"
    for f in $precmd_functions $preexec_functions; do
      [[ $f == __mytty_* ]] || all+=${functions[$f]-}
    done
    [[ $all == *'133;'* ]] && __mytty_osc=
  }

  # First precmd: report what finished, then mark the prompt's start.
  __mytty_precmd() {
    local st=$?
    emulate -L zsh
    if [[ -z $__mytty_started ]]; then
      __mytty_decide_osc
    fi
    if [[ $PWD != "$__mytty_pwd" ]]; then
      __mytty_pwd=$PWD
      __mytty_encode_pwd $PWD
    fi
    if [[ -n $__mytty_ran ]]; then
      __mytty_ran=
      [[ -n $__mytty_osc ]] && print -rn -- $'\e]133;D;'$st$'\a'
      __mytty_report D $st
    elif [[ -z $__mytty_started && ${MYTTY_LAUNCH_STATUS-x} != *[^0-9]* \
            && ${#MYTTY_LAUNCH_STATUS} -le 3 ]]; then
      # The pane's initial command, run by mytty-shell before this shell started.
      [[ -n $__mytty_osc ]] && print -rn -- $'\e]133;D;'$MYTTY_LAUNCH_STATUS$'\a'
      __mytty_report D $MYTTY_LAUNCH_STATUS
    elif [[ -z $__mytty_started ]]; then
      __mytty_report P -   # the shell's first prompt: the controller learns the directory
    fi
    __mytty_started=1
    unset MYTTY_LAUNCH_STATUS
    print -rn -- $'\e]7;file://'${HOST-}$__mytty_pwd_enc$'\a'
    [[ -n $__mytty_osc ]] && print -rn -- $'\e]133;A\a'
    return $st
  }

  # Last precmd: prompt themes rebuild PROMPT in theirs; put the end-of-prompt mark back.
  # (It checks the user's option before `emulate` resets them for the function.)
  __mytty_precmd_end() {
    [[ -o prompt_percent && -n $__mytty_osc && $PS1 != *"$__mytty_ps1_mark" ]] \
      && PS1+=$__mytty_ps1_mark
    return 0
  }

  __mytty_preexec() {
    emulate -L zsh
    __mytty_ran=1
    [[ -n $__mytty_osc ]] && print -rn -- $'\e]133;C\a'
    return 0
  }
fi
# The hooks, first and last (sourcing again puts back what something removed; never twice).
typeset -ga precmd_functions preexec_functions   # keeps their values; set for nounset
if [[ -n ${__mytty_zsh_loaded-} ]] && (( ! ${precmd_functions[(Ie)__mytty_precmd]} \
     || ! ${preexec_functions[(Ie)__mytty_preexec]} )); then
  precmd_functions=(__mytty_precmd ${precmd_functions:#__mytty_precmd*} __mytty_precmd_end)
  preexec_functions=(__mytty_preexec ${preexec_functions:#__mytty_preexec})
fi
