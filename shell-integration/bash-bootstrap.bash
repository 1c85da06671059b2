# mytty: rc file for the bash that `mytty-shell` starts in a pane created by mytty.
# It does what a login shell would (tmux starts login shells), then loads mytty.bash.
unset MYTTY_BASH_BOOTSTRAP
[ -r /etc/profile ] && . /etc/profile
if [ -r ~/.bash_profile ]; then . ~/.bash_profile
elif [ -r ~/.bash_login ]; then . ~/.bash_login
elif [ -r ~/.profile ]; then
  . ~/.profile
  # A ~/.profile that holds nothing but mytty's line is the one `mytty shell-integration
  # install` made on a machine with none: read ~/.bashrc as when there was no login file.
  __mytty_own=1
  while IFS= read -r __mytty_line || [ -n "$__mytty_line" ]; do
    case $__mytty_line in
      '' | *'# mytty shell integration') ;;
      *) __mytty_own=0 ;;
    esac
  done < ~/.profile
  if [ "$__mytty_own" = 1 ] && [ -r ~/.bashrc ]; then . ~/.bashrc; fi
  unset __mytty_own __mytty_line
elif [ -r ~/.bashrc ]; then . ~/.bashrc
fi
. "${BASH_SOURCE[0]%/*}/mytty.bash"
