"""``agent spawn --worktree <branch>``: find or create the git worktree a worker runs in.

The worktree lives next to the repository, never inside it, so the main checkout's
``git status`` stays clean: ``<parent of repo>/<repo name>-worktrees/<branch, "/" → "-">``.
A path git already knows as a worktree is reused whatever it has checked out (a second spawn on
the same branch is idempotent); an existing local branch is checked out; otherwise a new branch
starts at the repository's HEAD. A worktree mytty created itself (never one it reused) is
recorded in ``$MYTTY_HOME/worktrees.jsonl`` (:mod:`mytty.daemon.worktree.record_file`); only those
can ever be removed, by ``mytty worktree gc`` or ``agent close --remove-worktree``, and only under
the rules of :mod:`mytty.core.worktree.safety`.

Blocking (runs git); call it from a worker thread.
"""

from __future__ import annotations

import logging
import os
import secrets
import subprocess
import time
from dataclasses import dataclass

from mytty.core.errors import ErrorCode, MyttyError
from mytty.core.validation import validate_worktree_branch
from mytty.core.worktree.record import WorktreeEntry, created_line
from mytty.daemon.worktree.record_file import WorktreeRecord

log = logging.getLogger(__name__)

#: The file in a worktree's private git directory that holds mytty's creation token.
TOKEN_FILE = "mytty-token"
#: Seconds each git command may take.
GIT_TIMEOUT_SECONDS = 30.0
# After a timeout: ask git to stop, give it this long, then kill it.
_TERMINATE_GRACE_SECONDS = 0.5
# Variables that would point git at some other repository than the one given with -C.
_GIT_LOCATION_VARS = (
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_COMMON_DIR",
    "GIT_OBJECT_DIRECTORY",
    "GIT_NAMESPACE",
)


@dataclass(frozen=True, slots=True)
class GitResult:
    returncode: int
    stdout: str
    stderr: str


def run_git(git: str, args: list[str], timeout: float, *, stdin: bytes | None = None) -> GitResult:
    env = {k: v for k, v in os.environ.items() if k not in _GIT_LOCATION_VARS}
    env["GIT_TERMINAL_PROMPT"] = "0"
    try:
        proc = subprocess.Popen(
            [git, *args],
            stdin=subprocess.DEVNULL if stdin is None else subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
        )
    except OSError as exc:
        return GitResult(127, "", f"couldn't run {git}: {exc.strerror or exc}")
    try:
        out, err = proc.communicate(stdin, timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.terminate()
        try:
            out, err = proc.communicate(timeout=_TERMINATE_GRACE_SECONDS)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, err = proc.communicate()
        return GitResult(-1, "", f"git {' '.join(args[2:4])} timed out after {timeout:g} s")
    return GitResult(
        proc.returncode,
        os.fsdecode(out),
        os.fsdecode(err).strip(),
    )


def worktree_path(repo_root: str, branch: str) -> str:
    """Where the worktree of ``branch`` goes for the repository at ``repo_root``."""
    root = os.path.normpath(repo_root)
    return os.path.join(
        os.path.dirname(root), os.path.basename(root) + "-worktrees", branch.replace("/", "-")
    )


def _registered_worktrees(porcelain: str) -> list[str]:
    prefix = "worktree "
    return [line[len(prefix) :] for line in porcelain.splitlines() if line.startswith(prefix)]


def _same_path(a: str, b: str) -> bool:
    return os.path.realpath(a) == os.path.realpath(b)


def _with_detail(message: str, stderr: str) -> str:
    return f"{message}: {stderr}" if stderr else message


def resolve_worktree(
    base_dir: str,
    branch: str,
    *,
    git: str = "git",
    timeout: float = GIT_TIMEOUT_SECONDS,
    record: WorktreeRecord | None = None,
) -> str:
    """Return the worktree directory for ``branch`` of the repository containing ``base_dir``.

    Raises MyttyError ``invalid-worktree-branch`` (bad name), ``not-a-git-repository`` (``base_dir``
    is not inside a work tree) or ``worktree-create-failed`` (the path is taken by something that
    is not a registered worktree, the registered worktree's directory is missing, or git refused;
    git's own explanation is included). A worktree this call created is appended to ``record``.
    """
    problem = validate_worktree_branch(branch)
    if problem is not None:
        raise MyttyError(ErrorCode.INVALID_WORKTREE_BRANCH, problem)

    top = run_git(git, ["-C", base_dir, "rev-parse", "--show-toplevel"], timeout)
    root = top.stdout.rstrip("\n")
    if top.returncode != 0 or not root:
        raise MyttyError(
            ErrorCode.NOT_A_GIT_REPOSITORY,
            _with_detail(f"{base_dir} is not inside a git work tree", top.stderr),
        )

    path = worktree_path(root, branch)
    listing = run_git(git, ["-C", root, "worktree", "list", "--porcelain"], timeout)
    if listing.returncode != 0:
        raise MyttyError(
            ErrorCode.WORKTREE_CREATE_FAILED,
            _with_detail(f"couldn't list the worktrees of {root}", listing.stderr),
        )
    if any(_same_path(registered, path) for registered in _registered_worktrees(listing.stdout)):
        if not os.path.isdir(path):
            raise MyttyError(
                ErrorCode.WORKTREE_CREATE_FAILED,
                f"{path} is registered as a worktree but its directory is missing; "
                f"run `git -C {root} worktree prune` and spawn again",
            )
        return path
    if os.path.lexists(path):
        raise MyttyError(
            ErrorCode.WORKTREE_CREATE_FAILED,
            f"{path} already exists but is not a worktree of {root}; move it away or pick "
            "another branch name",
        )

    has_branch = run_git(
        git, ["-C", root, "rev-parse", "--verify", "--quiet", f"refs/heads/{branch}"], timeout
    )
    if has_branch.returncode == 0:
        add_args = ["-C", root, "worktree", "add", path, branch]
    else:
        add_args = ["-C", root, "worktree", "add", "-b", branch, path]
    base = run_git(git, ["-C", root, "symbolic-ref", "--quiet", "--short", "HEAD"], timeout)
    added = run_git(git, add_args, timeout)
    if added.returncode != 0:
        raise MyttyError(
            ErrorCode.WORKTREE_CREATE_FAILED,
            _with_detail(f"git worktree add {path} failed", added.stderr),
        )
    if record is not None:
        _record_creation(
            record,
            git,
            timeout,
            root=root,
            path=path,
            branch=branch,
            base=base.stdout.strip() if base.returncode == 0 else None,
            new_branch=has_branch.returncode != 0,
        )
    return path


def _record_creation(
    record: WorktreeRecord,
    git: str,
    timeout: float,
    *,
    root: str,
    path: str,
    branch: str,
    base: str | None,
    new_branch: bool,
) -> None:
    # Unrecorded means "never removed by mytty": the safe way to fail, so only log it.
    common = run_git(
        git, ["-C", root, "rev-parse", "--path-format=absolute", "--git-common-dir"], timeout
    )
    private = run_git(git, ["-C", path, "rev-parse", "--absolute-git-dir"], timeout)
    try:
        st = os.stat(path)
        if common.returncode != 0 or not common.stdout.strip():
            raise OSError(common.stderr or "git rev-parse --git-common-dir failed")
        if private.returncode != 0 or not private.stdout.strip():
            raise OSError(private.stderr or "git rev-parse --absolute-git-dir failed")
        token = secrets.token_hex(16)
        marker = os.path.join(private.stdout.strip(), TOKEN_FILE)
        fd = os.open(marker, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(token + "\n")
        entry = WorktreeEntry(
            path=os.path.realpath(path),
            repo=root,
            common_dir=common.stdout.strip(),
            branch=branch,
            base=base,
            new_branch=new_branch,
            device=st.st_dev,
            inode=st.st_ino,
            created_at=time.time(),
            token=token,
        )
        record.append(created_line(entry))
    except OSError as exc:
        log.warning("could not record the worktree %s mytty created: %s", path, exc)
