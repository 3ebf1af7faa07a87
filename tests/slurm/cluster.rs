//! A one-node Slurm cluster on loopback for the tests, without systemd: a generated
//! `slurm.conf` in a temporary directory (no authentication daemon: `auth/none`,
//! `cred/none`; free ports; the node's CPUs), then `slurmctld -D` and `slurmd -D` as child
//! processes, stopped by their process ids when the cluster is dropped.
//!
//! It has two partitions on the one node: `test`, the default, and `urgent`, whose jobs
//! preempt those of `test` with `PreemptMode=REQUEUE` (Slurm ends the preempted job as it
//! ends a cancelled one, SIGTERM and after `KillWait` SIGKILL, and requeues it).
//!
//! The daemons come from the distribution's packages (`slurmctld`, `slurmd`, `slurm-client`),
//! which `.ci/run` installs; slurmd must run as root. When anything is missing the cluster
//! does not start and the test fails, saying why.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// A running one-node cluster; its daemons stop when it is dropped.
pub struct Cluster {
    dir: tempfile::TempDir,
    conf: PathBuf,
    daemons: Vec<Child>,
    cpus: usize,
}

/// A port that was free a moment ago.
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port on loopback")
        .port()
}

/// `program` found on `PATH` or in the sbin directories, else a panic naming the package.
fn find(program: &str, package: &str) -> PathBuf {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain(["/usr/sbin", "/sbin", "/usr/bin"].map(PathBuf::from))
        .map(|dir| dir.join(program))
        .find(|p| p.is_file())
        .unwrap_or_else(|| {
            panic!(
                "Slurm cannot start: '{program}' is not installed (Debian package '{package}'; \
                 .ci/run installs it: apt-get install slurmctld slurmd slurm-client)"
            )
        })
}

impl Cluster {
    /// Writes the configuration, starts both daemons and waits until the node is idle.
    ///
    /// # Panics
    /// When a program is missing, this is not root, or the node is not idle within 60 s;
    /// the message holds the daemons' logs.
    pub fn start() -> Cluster {
        let slurmctld = find("slurmctld", "slurmctld");
        let slurmd = find("slurmd", "slurmd");
        find("sbatch", "slurm-client");
        let uid = Command::new("id").arg("-u").output().expect("id runs");
        assert_eq!(
            String::from_utf8_lossy(&uid.stdout).trim(),
            "0",
            "Slurm cannot start: slurmd must run as root (this test starts a one-node cluster)"
        );
        let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
            .expect("hostname")
            .trim()
            .to_owned();
        let cpus = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
        let dir = tempfile::tempdir().expect("temp dir");
        let d = dir.path().to_path_buf();
        for sub in ["state", "spool"] {
            std::fs::create_dir(d.join(sub)).expect("mkdir");
        }
        let conf = d.join("slurm.conf");
        // cred_expire=5: a requeued task may start again after 6 s (the default is 121 s).
        let text = format!(
            "ClusterName=mastersimtest\n\
             SlurmctldHost={host}(127.0.0.1)\n\
             SlurmctldPort={ctld_port}\n\
             SlurmdPort={d_port}\n\
             AuthType=auth/none\n\
             CredType=cred/none\n\
             AuthInfo=cred_expire=5\n\
             SlurmUser=root\n\
             SlurmdUser=root\n\
             StateSaveLocation={state}\n\
             SlurmdSpoolDir={spool}\n\
             SlurmctldPidFile={d}/slurmctld.pid\n\
             SlurmdPidFile={d}/slurmd.pid\n\
             SlurmctldLogFile={d}/slurmctld.log\n\
             SlurmdLogFile={d}/slurmd.log\n\
             ProctrackType=proctrack/linuxproc\n\
             TaskPlugin=task/none\n\
             SelectType=select/cons_tres\n\
             SelectTypeParameters=CR_CPU\n\
             SchedulerType=sched/backfill\n\
             JobAcctGatherType=jobacct_gather/none\n\
             AccountingStorageType=accounting_storage/none\n\
             MpiDefault=none\n\
             ReturnToService=2\n\
             SwitchType=switch/none\n\
             MinJobAge=600\n\
             PreemptType=preempt/partition_prio\n\
             PreemptMode=REQUEUE\n\
             NodeName={host} NodeAddr=127.0.0.1 CPUs={cpus} State=UNKNOWN\n\
             PartitionName=test Nodes={host} Default=YES MaxTime=INFINITE State=UP \
             PriorityTier=1\n\
             PartitionName=urgent Nodes={host} MaxTime=INFINITE State=UP PriorityTier=2 \
             PreemptMode=OFF\n",
            ctld_port = free_port(),
            d_port = free_port(),
            state = d.join("state").display(),
            spool = d.join("spool").display(),
            d = d.display(),
        );
        std::fs::write(&conf, text).expect("write slurm.conf");
        let daemon = |program: &Path, extra: &[&str], log: &str| {
            Command::new(program)
                .arg("-D")
                .arg("-f")
                .arg(&conf)
                .args(extra)
                .env("SLURM_CONF", &conf)
                .stdin(Stdio::null())
                .stdout(std::fs::File::create(d.join(log)).expect("log file"))
                .stderr(Stdio::from(
                    std::fs::File::options()
                        .append(true)
                        .open(d.join(log))
                        .expect("log file"),
                ))
                .spawn()
                .unwrap_or_else(|e| panic!("Slurm cannot start: {}: {e}", program.display()))
        };
        let daemons = vec![
            daemon(&slurmctld, &[], "slurmctld.out"),
            daemon(&slurmd, &["-N", &host], "slurmd.out"),
        ];
        let mut cluster = Cluster {
            daemons,
            conf: conf.clone(),
            dir,
            cpus,
        };
        let started = Instant::now();
        loop {
            let state = cluster.output("sinfo", &["-h", "-o", "%T"]);
            let state = String::from_utf8_lossy(&state.stdout).trim().to_owned();
            if state == "idle" {
                break;
            }
            for daemon in &mut cluster.daemons {
                if let Ok(Some(status)) = daemon.try_wait() {
                    panic!(
                        "Slurm cannot start: a daemon exited ({status}); logs:\n{}",
                        cluster.logs()
                    );
                }
            }
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "Slurm cannot start: the node is '{state}', not idle, after 60 s; logs:\n{}",
                cluster.logs()
            );
            std::thread::sleep(Duration::from_millis(250));
        }
        cluster
    }

    /// A client command (`sbatch`, `squeue`, `scancel`, …, or `mastersim` submitting jobs)
    /// talking to this cluster.
    pub fn command(&self, program: impl AsRef<std::ffi::OsStr>) -> Command {
        let mut command = Command::new(program);
        command.env("SLURM_CONF", &self.conf);
        command
    }

    /// Runs a client command and returns its output.
    pub fn output(&self, program: &str, args: &[&str]) -> Output {
        self.command(program)
            .args(args)
            .output()
            .unwrap_or_else(|e| panic!("{program} cannot be run: {e}"))
    }

    /// The node's CPUs, as configured.
    pub fn cpus(&self) -> usize {
        self.cpus
    }

    /// The state of job `id` (`RUNNING`, `PENDING`, …), empty when it is no longer queued.
    pub fn state(&self, id: &str) -> String {
        let out = self.output("squeue", &["-h", "-j", id, "-o", "%T"]);
        String::from_utf8_lossy(&out.stdout).trim().to_owned()
    }

    /// The whole queue as `squeue` shows it, one task per line, for failure messages.
    pub fn queue(&self) -> String {
        let out = self.output("squeue", &["--array"]);
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Waits until job `id` (all of its array tasks) has left the queue.
    ///
    /// # Panics
    /// After `timeout`, with the queue and the logs.
    pub fn wait_until_done(&self, id: &str, timeout: Duration) {
        let started = Instant::now();
        while !self.state(id).is_empty() {
            assert!(
                started.elapsed() < timeout,
                "job {id} still queued after {timeout:?}: {}\nlogs:\n{}",
                self.state(id),
                self.logs()
            );
            std::thread::sleep(Duration::from_millis(250));
        }
    }

    /// The daemons' logs, for failure messages.
    pub fn logs(&self) -> String {
        ["slurmctld.out", "slurmctld.log", "slurmd.out", "slurmd.log"]
            .iter()
            .map(|name| {
                let text = std::fs::read_to_string(self.dir.path().join(name)).unwrap_or_default();
                let tail: Vec<&str> = text.lines().rev().take(20).collect();
                format!(
                    "--- {name} (last lines)\n{}",
                    tail.into_iter().rev().collect::<Vec<_>>().join("\n")
                )
            })
            .collect::<Vec<_>>()
            .join("\n")
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        // slurmd first, so that it ends its job steps; SIGTERM, then SIGKILL after 10 s.
        for daemon in self.daemons.iter_mut().rev() {
            let _ = Command::new("kill")
                .args(["-TERM", &daemon.id().to_string()])
                .status();
            let started = Instant::now();
            while matches!(daemon.try_wait(), Ok(None)) {
                if started.elapsed() > Duration::from_secs(10) {
                    let _ = daemon.kill();
                    let _ = daemon.wait();
                    break;
                }
                std::thread::sleep(Duration::from_millis(50));
            }
        }
    }
}
