# The sandbox's idmap helper: the first program inside a bubblewrap sandbox that a root CLI
# starts for a writable workspace when no network is granted (init.py does the same work,
# and more, in a Python start: the same work took ~4 ms more there, median of 31).
#
# Run as `perl -f -e <this source> <unshare syscall number> <uid> <folder>... -- <command>...`
# with PERL_BADLANG=0 and no other PERL* variable in the environment (runtime/sandbox/
# sandbox_init.ts decides; without a PERL* variable nothing but this source runs, and `-f`
# skips a site customisation file). It
#   1. mounts each folder idmapped (on-disk root <-> `uid`) over itself, in the order given
#      (a workspace, then the `.git` folders pinned inside it): a recursive clone of what
#      bubblewrap mounted there, so guarded paths and masked files bound over the folder
#      stay as they were. Bubblewrap left CAP_SYS_ADMIN for this alone. Without idmapped
#      mounts (Linux before 5.12, a filesystem without them) a warning, and the folder stays
#      read-only for the uid;
#   2. removes PERL_BADLANG (set only so that a locale this system lacks draws no warning
#      from Perl itself) and executes the command: util-linux's `setpriv`, which becomes the
#      uid, then `env -C` into the working directory and `prlimit`, as without an idmap.
# Builtins only (no module is loaded); ships inside the skills binary (scripts/gen_bundled.ts).

my ($unshare, $uid, @rest) = @ARGV;
my @folders;
push @folders, shift @rest while @rest && $rest[0] ne '--';
shift @rest;
my @command = @rest;

sub fail {
    print STDERR "skills sandbox: $_[0]\n";
    exit 126;
}

fail("usage: <unshare> <uid> <folder>... -- <command>...")
    unless defined $uid && $uid =~ /^[0-9]+$/ && $unshare =~ /^[0-9]+$/ && @command;

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
        syswrite $ready_w, (syscall($unshare + 0, 0x10000000) == 0 ? "1" : "0");  # CLONE_NEWUSER
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

sub idmap_folders {
    my $namespace = user_namespace();
    my $userns = fileno $namespace;
    my $empty = "";  # syscall() passes strings by address and wants them writable
    for my $path (@folders) {
        # open_tree(CLONE | RECURSIVE | CLOEXEC), idmap its top, move it over the original.
        my $tree = syscall(428, -100, $path, 1 | 0x8000 | 0x80000);
        die "open_tree: $!\n" if $tree < 0;
        my $attr = pack("Q4", 0x00100000, 0, 0, $userns);  # MOUNT_ATTR_IDMAP
        syscall(442, $tree, $empty, 0x1000, $attr, length $attr) == 0
            or die "mount_setattr: $!\n";
        syscall(429, $tree, $empty, -100, $path, 0x4) == 0 or die "move_mount: $!\n";
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

delete $ENV{PERL_BADLANG};
exec { $command[0] } @command or fail("cannot start $command[0]: $!");
