# The sandbox's idmap helper: the first program inside a bubblewrap sandbox that a root CLI
# starts for a writable workspace when no network is granted (init.py does the same work,
# and more, in a Python start: the same work took ~4 ms more there, median of 31). It also
# does what util-linux's setpriv, coreutils' `env -C` and prlimit did after it, itself: those
# three execs cost ~2.3 ms from bubblewrap's start to the launcher (median of 41), a few
# system calls almost nothing.
#
# Run as
#   perl -f -e <this source> <syscalls> <folder>... -- <uid> <nproc> <as> <cpu> <fsize> <cwd>
#        <command>...
# where a folder may also be `overlay:<dir>` (the workspace made copy-on-write),
# `mask:<file>` (a secret file masked over it), `hide:<dir>` (a folder hidden over it) or
# `shown:<file>` (a file bubblewrap shows sanitized, a git config: shown so again over it);
# with PERL_BADLANG=0 and no other PERL* variable in the environment (runtime/sandbox/
# sandbox_init.ts decides; without a PERL* variable nothing but this source runs, and `-f`
# skips a site customisation file). <syscalls> are this architecture's numbers of unshare,
# setgroups, setresgid, setresuid, capset, prctl and prlimit64, comma-separated, in that
# order, then mount and umount2 (the CLI knows its architecture; open_tree and its kin have one
# number everywhere);
# each limit is a number or `unlimited`; <cwd> is empty to stay where bubblewrap started. It
#   1. mounts each folder idmapped (on-disk root <-> `uid`) over itself, in the order given
#      (a workspace, then the `.git` folders pinned inside it): a recursive clone of what
#      bubblewrap mounted there, so guarded paths and masked files bound over the folder
#      stay as they were. Bubblewrap left CAP_SYS_ADMIN for this alone. Without idmapped
#      mounts (Linux before 5.12, a filesystem without them) a warning, and the folder stays
#      read-only for the uid;
#   2. sets the limits, soft and hard (so nothing inside can raise them again), and no core
#      files: what `prlimit --nproc --as --cpu --fsize --core=0:0` sets in the other forms;
#   3. becomes the uid (gid the same, no supplementary groups) with every capability gone,
#      the inheritable and ambient sets included: what `setpriv --reuid --regid
#      --clear-groups --inh-caps=-all` does (bubblewrap left CAP_SETUID and CAP_SETGID for
#      it), then checks that it is that uid, with no group and no capability;
#   4. enters the working directory as the uid (an idmapped workspace is the uid's alone);
#   5. removes PERL_BADLANG (set only so that a locale this system lacks draws no warning
#      from Perl itself) and executes the command.
# Any failure of steps 2 to 5 ends it with status 126 before the command runs: never a
# command half-dropped. Builtins only (no module is loaded); ships inside the skills binary
# (scripts/gen_bundled.ts).

my ($syscalls, @rest) = @ARGV;
my (@folders, $overlay, @masks, @hides, @shown);
while (@rest && $rest[0] ne '--') {
    my $arg = shift @rest;
    if ($arg =~ m{^overlay:(/.*)$}s) { $overlay = $1 }
    elsif ($arg =~ m{^mask:(/.*)$}s) { push @masks, $1 }
    elsif ($arg =~ m{^hide:(/.*)$}s) { push @hides, $1 }
    elsif ($arg =~ m{^shown:(/.*)$}s) { push @shown, $1 }
    else { push @folders, $arg }
}
shift @rest;
my ($uid, $nproc, $as, $cpu, $fsize, $cwd, @command) = @rest;

sub fail {
    print STDERR "skills sandbox: $_[0]\n";
    exit 126;
}

my $limit = qr/^(?:[0-9]{1,19}|unlimited)$/;
fail("usage: <syscalls> <folder>... -- <uid> <nproc> <as> <cpu> <fsize> <cwd> <command>...")
    unless defined $syscalls && $syscalls =~ /^[0-9]+(?:,[0-9]+){8}$/
    && !grep({ !m{^/} } @folders)
    && defined $uid && $uid =~ /^[1-9][0-9]{0,9}$/
    && !grep({ !defined || !/$limit/ } $nproc, $as, $cpu, $fsize)
    && defined $cwd && $cwd =~ m{^(?:/.*)?$}s
    && @command;
my ($unshare, $setgroups, $setresgid, $setresuid, $capset, $prctl, $prlimit64, $mount, $umount2) =
    map { $_ + 0 } split /,/, $syscalls;
$uid += 0;

# A user namespace whose root is `uid` outside: the mapping of the mounts. Its holder is a
# child that has only unshared; its namespace file outlives it once opened.
sub user_namespace {
    pipe(my $ready_r, my $ready_w) or die "pipe: $!\n";
    pipe(my $done_r, my $done_w) or die "pipe: $!\n";
    my $pid = fork();
    defined $pid or die "fork: $!\n";
    if ($pid == 0) {
        close $ready_r;
        close $done_w;
        syswrite $ready_w, (syscall($unshare, 0x10000000) == 0 ? "1" : "0");  # CLONE_NEWUSER
        sysread $done_r, my $byte, 1;
        exit 0;
    }
    close $ready_w;
    close $done_r;
    my $namespace = eval {
        sysread $ready_r, my $ok, 1;
        die "cannot create a user namespace\n" unless defined $ok && $ok eq "1";
        for my $name ("uid_map", "gid_map") {
            open(my $map, '>', "/proc/$pid/$name") or die "$name: $!\n";
            print {$map} "0 $uid 1\n";
            close $map or die "$name: $!\n";
        }
        open(my $handle, '<', "/proc/$pid/ns/user") or die "user namespace: $!\n";
        $handle;
    };
    my $error = $@;
    syswrite $done_w, "x";
    waitpid $pid, 0;
    die $error unless $namespace;
    return $namespace;
}

# open_tree(CLONE | RECURSIVE | CLOEXEC) of `source`, its top idmapped for the namespace
# `userns`, moved onto `target`.
sub clone_tree {
    my ($source, $target, $userns) = @_;
    my $empty = "";  # syscall() passes strings by address and wants them writable
    my $tree = syscall(428, -100, $source, 1 | 0x8000 | 0x80000);
    die "open_tree: $!\n" if $tree < 0;
    my $attr = pack("Q4", 0x00100000, 0, 0, $userns);  # MOUNT_ATTR_IDMAP
    syscall(442, $tree, $empty, 0x1000, $attr, length $attr) == 0
        or die "mount_setattr: $!\n";
    syscall(429, $tree, $empty, -100, $target, 0x4) == 0 or die "move_mount: $!\n";
    # The tree's descriptor is close-on-exec: gone when the command starts.
}

sub idmap_folders {
    my $namespace = user_namespace();
    clone_tree($_, $_, fileno $namespace) for @folders;
}

# The workspace made copy-on-write (what init.py's overlay_workspace does for the kernel's
# overlay): the folder bubblewrap bound read-only becomes the lower layer, idmapped for the
# uid at /tmp/.skills-lower; the run folder bound at /tmp/.skills-layer holds the upper and
# work folders; the overlay is mounted over the folder, then both out of sight.
my $LOWER = "/tmp/.skills-lower";
my $LAYER = "/tmp/.skills-layer";
sub overlay_workspace {
    my $namespace = user_namespace();
    mkdir $LOWER, 0700 or die "mkdir $LOWER: $!\n";
    clone_tree($overlay, $LOWER, fileno $namespace);
    my ($type, $target) = ("overlay", $overlay);
    my $options = "lowerdir=$LOWER,upperdir=$LAYER/upper,workdir=$LAYER/work,"
        . "redirect_dir=off,index=off,metacopy=off";
    syscall($mount, $type, $target, $type, 2 | 4, $options) == 0  # MS_NOSUID | MS_NODEV
        or die "mount overlay: $!\n";
    my ($lower, $layer) = ($LOWER, $LAYER);
    syscall($umount2, $lower, 2);  # MNT_DETACH
    rmdir $LOWER;
    syscall($umount2, $layer, 2);
}

if (defined $overlay) {
    # The sanitized views bubblewrap bound (a git config without credentials), kept aside on a
    # file of this sandbox's private /tmp before the overlay hides every mount below it.
    my @kept;
    for my $i (0 .. $#shown) {
        my $aside = "/tmp/.skills-shown-$i";
        open(my $fh, '>', $aside) or fail("cannot keep the sanitized $shown[$i]: $!");
        close $fh;
        my $path = $shown[$i];
        syscall($mount, $path, $aside, 0, 4096, 0) == 0
            or fail("cannot keep the sanitized $path: $!");
        push @kept, [$aside, $path];
    }
    eval { overlay_workspace(); 1 } or do {
        my $why = $@;
        chomp $why;
        print STDERR
            "warning: the workspace is read-only for this run: cannot mount its overlay ($why)\n";
        rmdir "$LAYER/work/work";  # what the CLI reads as "never mounted"
    };
    # Other skills' folders hidden again, then the secret files masked, in the merged view
    # (after the overlay: a mount below a layer does not show through it). Never a secret
    # shown: a mask or hide that fails ends the run.
    for my $path (@hides) {
        my ($type, $options) = ("tmpfs", "size=4k,mode=755");
        syscall($mount, $type, $path, $type, 1 | 2 | 4, $options) == 0
            or fail("cannot hide $path: $!");
    }
    for my $path (@masks) {
        my ($null, $none) = ("/dev/null", "none");
        syscall($mount, $null, $path, 0, 4096, 0) == 0 or fail("cannot mask $path: $!");
        syscall($mount, $none, $path, 0, 32 | 4096 | 1 | 2 | 4, 0) == 0
            or fail("cannot mask $path read-only: $!");
    }
    # The sanitized views shown again over the merged view, read-only (never the original).
    for my $pair (@kept) {
        my ($aside, $path) = @$pair;
        my $none = "none";
        syscall($mount, $aside, $path, 0, 4096, 0) == 0 or fail("cannot show $path sanitized: $!");
        syscall($mount, $none, $path, 0, 32 | 4096 | 1 | 2 | 4, 0) == 0
            or fail("cannot show $path sanitized read-only: $!");
    }
}

if (@folders) {
    eval { idmap_folders(); 1 } or do {
        my $why = $@;
        chomp $why;
        print STDERR
            "warning: the workspace stays read-only for scripts: no idmapped mount ($why)\n";
    };
}

# prlimit64(0: this process, resource, {soft, hard}, no old value); RLIM_INFINITY is ~0.
for (["processes", 6, $nproc], ["address space", 9, $as], ["cpu time", 0, $cpu],
    ["file size", 1, $fsize], ["core file size", 4, 0])
{
    my ($name, $resource, $value) = @$_;
    my $n = $value eq "unlimited" ? ~0 : $value + 0;
    my $rlimit = pack("QQ", $n, $n);
    syscall($prlimit64, 0, $resource, $rlimit, 0) == 0
        or fail("cannot set the $name limit to $value: $!");
}

# Groups first, then the gid, then the uid: each later step takes the capability the one
# before needs. Leaving uid 0 for good empties the permitted and effective sets; capset
# (version 3, this process, all sets zero) empties the inheritable one, prctl the ambient.
syscall($setgroups, 0, 0) == 0 or fail("cannot clear the groups: $!");
syscall($setresgid, $uid, $uid, $uid) == 0 or fail("cannot become gid $uid: $!");
syscall($setresuid, $uid, $uid, $uid) == 0 or fail("cannot become uid $uid: $!");
my $header = pack("LL", 0x20080522, 0);
my $caps = pack("L6", (0) x 6);
syscall($capset, $header, $caps) == 0 or fail("cannot clear the capabilities: $!");
syscall($prctl, 47, 4, 0, 0, 0) == 0 or fail("cannot clear the ambient capabilities: $!");

# Checked, not assumed: the real and effective ids (Perl asks the kernel each time), and
# `$(`/`$)` are the gid followed by getgroups()'s list, so the gid alone means no group.
fail("still not uid and gid $uid after dropping privileges")
    unless $< == $uid && $> == $uid && $( eq "$uid" && $) eq "$uid";
open(my $status, '<', "/proc/self/status") or fail("cannot read /proc/self/status: $!");
my %cap = map { /^(Cap(?:Inh|Prm|Eff|Amb)):\s*([0-9a-f]+)$/ ? ($1 => $2) : () } <$status>;
close $status;
fail("capabilities left after dropping privileges")
    unless keys %cap == 4 && !grep { /[^0]/ } values %cap;

if ($cwd ne "") {
    chdir $cwd or fail("cannot enter the workspace $cwd: $!");
    $ENV{PWD} = $cwd;  # bubblewrap set it to where it started
}
delete $ENV{PERL_BADLANG};
exec { $command[0] } @command or fail("cannot start $command[0]: $!");
