# mytty: mytty-shell put this directory's grandparent first in XDG_DATA_DIRS so that a pane's
# fish loads mytty.fish. Take it out again (child processes see the user's XDG_DATA_DIRS).
if set -q MYTTY_SHELL_XDG_DIR
    set -l rest
    for d in (string split : -- "$XDG_DATA_DIRS")
        test "$d" = "$MYTTY_SHELL_XDG_DIR"; or set -a rest $d
    end
    if set -q MYTTY_XDG_DATA_DIRS_UNSET
        set -e XDG_DATA_DIRS
    else
        set -gx XDG_DATA_DIRS (string join : -- $rest)
    end
    set -l integration $MYTTY_SHELL_XDG_DIR/mytty.fish
    set -e MYTTY_SHELL_XDG_DIR
    set -e MYTTY_XDG_DATA_DIRS_UNSET
    test -r $integration; and source $integration
end
