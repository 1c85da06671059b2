# mytty: see .zshenv beside this file. mytty.zsh loads after the user's .zshrc, so its hooks
# come first and last in the chains that prompt themes set up there.
typeset -g __mytty_zsh_integration=${__mytty_zdotdir:h}/mytty.zsh
__mytty_zd_user
[[ -r ${ZDOTDIR:-$HOME}/.zshrc ]] && source ${ZDOTDIR:-$HOME}/.zshrc
source $__mytty_zsh_integration
unset __mytty_zsh_integration
__mytty_zd_next zshrc
