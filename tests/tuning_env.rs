//! `RENSA_TUNING`, the developers' A/B knob of `pbrain-rensa`: a valid value is silent, a bad one is
//! reported on stderr and ignored, and the protocol on stdout is the same either way.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

fn run(tuning: &str) -> (String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_pbrain-rensa"))
        .env("RENSA_TUNING", tuning)
        .env_remove("RUST_LOG")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start pbrain-rensa");
    let mut stdin = child.stdin.take().unwrap();
    stdin
        .write_all(b"START 15\nINFO timeout_turn 200\nBEGIN\n")
        .unwrap();
    // END only after the move (END abandons a running search); a reader thread keeps the wait
    // bounded.
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut text = String::new();
        for _ in 0..2 {
            if stdout.read_line(&mut text).unwrap_or(0) == 0 {
                break;
            }
        }
        let _ = tx.send(text);
    });
    let text = match rx.recv_timeout(std::time::Duration::from_secs(20)) {
        Ok(text) => text,
        Err(_) => {
            let _ = child.kill();
            panic!("{tuning}: no answer to BEGIN within 20 s");
        }
    };
    stdin.write_all(b"END\n").unwrap();
    drop(stdin);
    let out = child.wait_with_output().expect("pbrain-rensa exits");
    (text, String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn tuning_from_the_environment() {
    for tuning in ["qwin=1,limit=16", "bogus=1", "limit=x"] {
        let (stdout, stderr) = run(tuning);
        let lines: Vec<&str> = stdout.lines().collect();
        assert_eq!(lines.len(), 2, "{tuning}: {stdout:?}");
        assert_eq!(lines[0], "OK");
        assert_eq!(
            lines[1], "7,7",
            "{tuning}: BEGIN on an empty board plays the centre"
        );
        let bad = !tuning.starts_with("qwin");
        assert_eq!(
            stderr.contains("not understood"),
            bad,
            "{tuning}: {stderr:?}"
        );
        if !bad {
            assert!(stderr.is_empty(), "{tuning}: {stderr:?}");
        }
    }
}

/// `pbrain-rensa bench` with the environment variable `var` set to `value` (and neither
/// `RENSA_TUNING`, unless that is `var`, nor `RUST_LOG`): its last line, `Bench: <nodes>`, and
/// its stderr.
fn bench_with(var: &str, value: &std::ffi::OsStr) -> (String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_pbrain-rensa"))
        .arg("bench")
        .env_remove("RENSA_TUNING")
        .env_remove("RUST_LOG")
        .env_remove("RENSA_NET")
        .env_remove("RENSA_COMBO")
        .env_remove("RENSA_POLICY")
        .env(var, value)
        .output()
        .expect("run bench");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let last = text.lines().last().unwrap_or_default().to_string();
    assert!(last.starts_with("Bench: "), "{var}={value:?}: {text}");
    (last, String::from_utf8_lossy(&out.stderr).into_owned())
}

/// Evaluation weights and the null-move knob in `RENSA_TUNING` reach the search: the bench's node
/// count changes.
#[test]
fn evaluation_weights_from_the_environment() {
    let bench = |tuning: &str| bench_with("RENSA_TUNING", tuning.as_ref()).0;
    let default = bench("");
    // A knob reaches the search if the bench changes with it or, for the parts of the move
    // ordering that a move-ordering policy replaces (every bench position has one built in
    // since the seventy-second session), with the policy off (`pol=0`).
    let no_policy = bench("pol=0");
    let reaches =
        |knob: &str| bench(knob) != default || bench(&format!("{knob},pol=0")) != no_policy;
    assert_ne!(bench("p8=1000,b7=100"), default);
    // The null move (off by default) prunes some of the bench's nodes.
    assert_ne!(bench("nmp=2"), default);
    // Reverse futility pruning (on by default) and the other pruning knobs reach the search.
    assert_ne!(bench("rfp=0"), default);
    assert_ne!(bench("lmp=0,lmrlog=0"), default);
    assert_ne!(bench("fut=100"), default);
    assert_ne!(bench("iir=5"), default);
    // The fifth session's ordering, reduction and extension knobs (off by default, but for the
    // three ordering bonuses: two on since the sixth session, `ownb` since the twentieth).
    for knob in [
        "hmal=1", "lmrh=300", "kr=1", "lext=4", "lastb=0", "ownb=0", "cmb=0", "imprfp=1",
        "implmp=1", "vctd=5",
    ] {
        assert!(reaches(knob), "{knob}");
    }
    // The sixty-ninth session's defence extension (off by default), everywhere and at PV
    // nodes only, grows the tree.
    for knob in ["dext=1", "dext=2,dextpv=1"] {
        assert!(reaches(knob), "{knob}");
    }
    // The seventh session's threat-safety check (off by default) counts its nodes.
    assert_ne!(bench("svct=200000"), default);
    // `rfz=1`: renju black's foul shapes score nothing (off by default; the bench has renju
    // positions).
    assert_ne!(bench("rfz=1"), default);
    // The eighth session's knobs: reductions of threat moves (on by default, sparing fours),
    // distance-scaled ordering (on by default but in renju, since the ninth) and the rest.
    for knob in [
        "lmrq=0",
        "lmrq=1",
        "lmrfrom=2",
        "pvlimit=16",
        "razor=100",
        "far=0",
        "far=1",
        "vcfb=1",
        "farr=3",
        "ordatk=16",
        "ordatk=24",
        // The tenth session's: move-count pruning by quietness, saturating history, a stored
        // bound for reverse futility, internal iterative deepening.
        "mcp=8",
        "hgrav=1",
        "ttse=1",
        "iid=5",
        // The eleventh session's: the first aspiration window.
        "asp=150",
        // The twelfth session's: two-ply smoothing of the static value.
        "avg=1",
        "avg=2",
        // The thirteenth session's: candidates on the lines through the stones only.
        "star=1",
        "star=2",
        // The fourteenth session's: mate bounds at any depth, own fours reduced unless
        // answering a three.
        "ttmate=1",
        "ttmate=2",
        "lmrq=3",
        // The fifteenth session's: singular extension (on by default from depth 6 in every rule
        // since the ninety-second session), with multi-cut.
        "se=0",
        "se=5",
        "semc=1",
        // The ninety-fourth session's: double and negative singular extensions.
        "sedx=50",
        "sene=1",
        // The twenty-first session's: more reduction at expected cut nodes.
        "cutr=1",
        // The twenty-second session's: the freestyle evaluation network's share.
        "netpct=0",
        "netpct=100",
        // The sixtieth session's: reductions and pruning by the move-ordering policy's score (the
        // bench has 15x15 freestyle positions, where the policy is built in).
        "polr=450",
        "polrl=150",
        "polp=300",
        // The sixty-first session's: correction history of the static value.
        "corr=100",
        "corr=100,corrw=8",
        "corr=100,corrk=6",
        "corr=100,corrleaf=0",
    ] {
        assert!(reaches(knob), "{knob}");
    }
    assert_eq!(
        bench(
            "limit=12,rfp=100,lmp=3,lmrlog=18,lastb=100,cmb=150,svct=0,rfoul=1,rfz=0,lmrq=4,\
             lmrfrom=3,far=2,farr=4,ordatk=0,mcp=0,hgrav=0,ttse=0,iid=0,asp=60,avg=0,star=0,ttmate=0,\
             se=-1,sem=10,semc=0,sedx=0,sene=0,ownb=100,cutr=0,netpct=50,pol=1,polr=0,polrl=0,polp=0,corr=0,\
             corrw=4,corrk=1,corrleaf=1"
        ),
        default,
        "an explicit default changes nothing"
    );
}

/// `RENSA_COMBO`, per-combination evaluation corrections from `examples/fit_combo.rs`: a file
/// reaches the evaluation (the bench's node count changes), a bad one is reported on stderr and
/// ignored.
#[test]
fn combo_corrections_from_the_environment() {
    let bench = |file: &std::path::Path| bench_with("RENSA_COMBO", file.as_os_str());
    let dir = std::env::temp_dir().join(format!("rensa-combo-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // A single flex three (classes 0, 0, 0, 6 sorted: index 6000) worth 300 more.
    let good = dir.join("good.txt");
    std::fs::write(&good, "6000 300\n").unwrap();
    let bad = dir.join("bad.txt");
    std::fs::write(&bad, "12000 5\n").unwrap();
    let missing = dir.join("missing.txt");
    let (default, err) = bench(&missing);
    assert!(err.contains("RENSA_COMBO"), "{err:?}");
    let (corrected, err) = bench(&good);
    assert!(err.is_empty(), "{err:?}");
    assert_ne!(corrected, default);
    let (ignored, err) = bench(&bad);
    assert!(err.contains("out of range"), "{err:?}");
    assert_eq!(ignored, default);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `RENSA_NET`, an evaluation network from `examples/fit_net.py`: a file reaches the evaluation
/// (given for every rule, the built-in freestyle network changes the bench's other rules too), a
/// bad one is reported on stderr and ignored.
#[test]
fn evaluation_network_from_the_environment() {
    let bench = |file: &std::path::Path| bench_with("RENSA_NET", file.as_os_str());
    let dir = std::env::temp_dir().join(format!("rensa-net-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let good = dir.join("good.net");
    std::fs::write(&good, include_str!("../nets/freestyle.net")).unwrap();
    let bad = dir.join("bad.net");
    std::fs::write(&bad, "300 21 8\n").unwrap();
    let missing = dir.join("missing.net");
    let (default, err) = bench(&missing);
    assert!(err.contains("RENSA_NET"), "{err:?}");
    let (everywhere, err) = bench(&good);
    assert!(err.is_empty(), "{err:?}");
    assert_ne!(everywhere, default);
    let (ignored, err) = bench(&bad);
    assert!(err.contains("not supported"), "{err:?}");
    assert_eq!(ignored, default);
    let _ = std::fs::remove_dir_all(&dir);
}
