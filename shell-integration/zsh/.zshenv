# mytty: mytty-shell points ZDOTDIR here so that a pane's zsh loads mytty.zsh after the user's
# .zshrc. Each file here runs the user's own file of the same name (with ZDOTDIR as the user
# has it, or HOME), and the last one zsh reads gives ZDOTDIR back: nothing of this outlives
# start-up, and .zlogout and child shells use the user's files.
typeset -g __mytty_zdotdir=$ZDOTDIR __mytty_zd_set=0 __mytty_zd_val=
if [[ -n ${MYTTY_USER_ZDOTDIR+x} ]]; then
  __mytty_zd_set=1 __mytty_zd_val=$MYTTY_USER_ZDOTDIR
  unset MYTTY_USER_ZDOTDIR
fi
# ZDOTDIR as the user has it (for their file).
__mytty_zd_user() {
  if (( __mytty_zd_set )); then ZDOTDIR=$__mytty_zd_val; else unset ZDOTDIR; fi
}
# Remember what the user's file left in ZDOTDIR, then point zsh at our next file.
__mytty_zd_ours() {
  if [[ -n ${ZDOTDIR+x} ]]; then __mytty_zd_set=1 __mytty_zd_val=$ZDOTDIR; else __mytty_zd_set=0; fi
  ZDOTDIR=$__mytty_zdotdir
}
# True when zsh reads none of our files after $1.
__mytty_zd_last() {
  [[ -o rcs ]] || return 0
  case $1 in
    zshenv) [[ ! -o login && ! -o interactive ]] ;;
    zprofile) return 1 ;;
    zshrc) [[ ! -o login ]] ;;
    *) return 0 ;;
  esac
}
__mytty_zd_next() {   # after the user's file $1: hand over or point at our next file
  if __mytty_zd_last $1; then
    unfunction __mytty_zd_user __mytty_zd_ours __mytty_zd_last __mytty_zd_next
    unset __mytty_zdotdir __mytty_zd_set __mytty_zd_val
  else
    __mytty_zd_ours
  fi
}
__mytty_zd_user
[[ -r ${ZDOTDIR:-$HOME}/.zshenv ]] && source ${ZDOTDIR:-$HOME}/.zshenv
__mytty_zd_next zshenv
