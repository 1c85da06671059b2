# mytty: rc file for the bash that `mytty-shell` starts in a pane created by mytty.
# It does what a login shell would (tmux starts login shells), then loads mytty.bash.
unset MYTTY_BASH_BOOTSTRAP
[ -r /etc/profile ] && . /etc/profile
if [ -r ~/.bash_profile ]; then . ~/.bash_profile
elif [ -r ~/.bash_login ]; then . ~/.bash_login
elif [ -r ~/.profile ]; then . ~/.profile
elif [ -r ~/.bashrc ]; then . ~/.bashrc
fi
. "${BASH_SOURCE[0]%/*}/mytty.bash"
