# mytty: see .zshenv beside this file.
__mytty_zd_user
[[ -r ${ZDOTDIR:-$HOME}/.zprofile ]] && source ${ZDOTDIR:-$HOME}/.zprofile
__mytty_zd_next zprofile
