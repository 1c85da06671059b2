# mytty shell integration for fish.
#
# Panes that mytty creates load this automatically (through XDG_DATA_DIRS, see
# xdg/fish/vendor_conf.d). For panes you open yourself with tmux's keys,
# `mytty shell-integration install fish` adds to ~/.config/fish/config.fish the line
#   set -q TMUX; and source /path/to/shell-integration/mytty.fish
# It gives the pane its mytty identity (`mytty-ctl env`), keeps mytty-ctl on PATH, marks the
# prompt with OSC 133 (A, B, C, D;<exit>; fish 4 marks prompts itself, so then we don't) and
# the directory with OSC 7, and appends "command finished with exit N in <cwd>" to
# $MYTTY_HOME/shell/<surface>.ev for the controller. The event handlers use builtins only: no
# fork per prompt, never waiting for the controller. MYTTY_SHELL_OSC133=0 keeps the marks off.
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

    set -g __mytty_ran
    set -g __mytty_started
    set -g __mytty_pwd
    set -g __mytty_pwd_enc
    set -g __mytty_osc 1
    set -l __mytty_major (string split -m1 . -- $FISH_VERSION)[1]
    if test "$__mytty_major" -ge 4 2>/dev/null; or contains -- "$MYTTY_SHELL_OSC133" 0 no off false
        set -g __mytty_osc
    end

    # Append one event line for the controller; silent and non-blocking when there is none.
    function __mytty_report --argument-names kind st
        set -q MYTTY_SURFACE_ID MYTTY_EVENT_CAPABILITY MYTTY_EVENT_SOCKET; or return 0
        string match -qr '^[A-Za-z0-9-]+$' -- $MYTTY_SURFACE_ID; or return 0
        string match -qr '^[A-F0-9]+$' -- $MYTTY_EVENT_CAPABILITY; or return 0
        string match -q '/*' -- $MYTTY_EVENT_SOCKET; or return 0
        set -l dir (string replace -r '/[^/]*$' '' -- $MYTTY_EVENT_SOCKET)/shell
        test -d $dir; and test -O $dir; or return 0
        set -l f $dir/$MYTTY_SURFACE_ID.ev
        # Never a FIFO someone left there: it could block.
        test -f $f; or not test -e $f; or return 0
        # Created 0600 whatever the umask (it holds the pane's capability); umask is a fish
        # function, so reading and restoring it forks nothing.
        if not test -e $f
            set -l old (umask)
            umask 077
            true 2>/dev/null >>$f
            umask $old
        end
        # fish has no clock builtin: "-" lets the controller use the time it reads the line.
        echo "$kind $st - $MYTTY_EVENT_CAPABILITY $__mytty_pwd_enc" 2>/dev/null >>$f
    end

    function __mytty_preexec --on-event fish_preexec
        set -g __mytty_ran 1
        set -q __mytty_osc[1]; and printf '\e]133;C\a'
    end

    function __mytty_postexec --on-event fish_postexec
        set -l st $status
        set -q __mytty_ran[1]; or return
        set -g __mytty_ran
        set -q __mytty_osc[1]; and printf '\e]133;D;%s\a' $st
        if test "$PWD" != "$__mytty_pwd"
            set -g __mytty_pwd $PWD
            set -g __mytty_pwd_enc (string escape --style=url -- $PWD)
        end
        __mytty_report D $st
    end

    function __mytty_prompt --on-event fish_prompt
        if test "$PWD" != "$__mytty_pwd"
            set -g __mytty_pwd $PWD
            set -g __mytty_pwd_enc (string escape --style=url -- $PWD)
        end
        if not set -q __mytty_started[1]
            set -g __mytty_started 1
            if string match -qr '^[0-9]{1,3}$' -- "$MYTTY_LAUNCH_STATUS"
                # The pane's initial command, run by mytty-shell before this shell started.
                set -q __mytty_osc[1]; and printf '\e]133;D;%s\a' $MYTTY_LAUNCH_STATUS
                __mytty_report D $MYTTY_LAUNCH_STATUS
            else
                __mytty_report P -   # the first prompt: the controller learns the directory
            end
            set -e MYTTY_LAUNCH_STATUS
            # config.fish has run by now: wrap the user's prompt to mark where input starts.
            if set -q __mytty_osc[1]; and functions -q fish_prompt; and not functions -q __mytty_user_prompt
                functions -c fish_prompt __mytty_user_prompt
                function fish_prompt
                    __mytty_user_prompt
                    printf '\e]133;B\a'
                end
            end
        end
        printf '\e]7;file://%s%s\a' $hostname $__mytty_pwd_enc
        set -q __mytty_osc[1]; and printf '\e]133;A\a'
    end
end
