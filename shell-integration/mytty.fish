# mytty shell integration for fish.
#
# For panes you open yourself with tmux's keys, add to ~/.config/fish/config.fish:
#   set -q TMUX; and source /path/to/shell-integration/mytty.fish
# It gives the pane its mytty identity (`mytty-ctl env`) and keeps mytty-ctl on PATH.
if not set -q __mytty_fish_loaded
    set -g __mytty_fish_loaded 1
    # A hand-made pane has no identity yet: ask the controller (it checks we really are in a pane).
    if not set -q MYTTY_SURFACE_ID; and set -q TMUX; and set -q MYTTY_CTL_BIN; and test -x "$MYTTY_CTL_BIN"
        "$MYTTY_CTL_BIN" env --fish 2>/dev/null | source
    end
    if set -q MYTTY_CTL_BIN
        set -l bindir (dirname -- "$MYTTY_CTL_BIN")
        contains -- $bindir $PATH; or set -gx PATH $PATH $bindir
    end
end
