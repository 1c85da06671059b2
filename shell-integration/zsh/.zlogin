# mytty: see .zshenv beside this file.
__mytty_zd_user
[[ -r ${ZDOTDIR:-$HOME}/.zlogin ]] && source ${ZDOTDIR:-$HOME}/.zlogin
__mytty_zd_next zlogin
