//! No allocation per call in the Boolean and String getters and setters of [`fmi::Instance`]
//! once their buffers have grown, called directly (below the session): FMI 2.0
//! (`FourVarsFeedThrough`) and FMI 1.0 (`Oscillator`).

use std::path::Path;
use std::sync::Arc;

use fmi::archive::{ExtractOptions, extract};
use fmi::{Error, Fmu, Instance, InstantiateOptions};

use super::{allocations_during, fmu};

/// Measured calls per case, after one warm-up call.
const ROUNDS: usize = 100;

/// Extracts the packed test FMU `name` into `dir` and loads it.
fn load(name: &str, dir: &Path) -> Arc<Fmu> {
    extract(Path::new(&fmu(name)), dir, &ExtractOptions::default())
        .expect("extract the packed FMU");
    Fmu::load(dir).expect("load the packed FMU")
}

/// `FourVarsFeedThrough` (fmus/four_vars): each output is the current value of its input.
mod feed_through {
    use fmi::ValueRef;

    pub const OUT_BOOL: ValueRef = ValueRef(1);
    pub const OUT_STRING: ValueRef = ValueRef(3);
    pub const IN_BOOL: ValueRef = ValueRef(5);
    pub const IN_STRING: ValueRef = ValueRef(7);
}

/// `FourVarsFeedThrough`, extracted into `dir`, instantiated and initialized.
fn initialized_feed_through(dir: &Path) -> Instance {
    let fmu = load("FourVarsFeedThrough", dir);
    let mut instance = fmu
        .instantiate("feed_through", &InstantiateOptions::default())
        .unwrap();
    instance.setup_experiment(None, 0.0, None).unwrap();
    instance.enter_initialization_mode().unwrap();
    instance.exit_initialization_mode().unwrap();
    instance
}

/// One communication step's worth of Boolean and String traffic on `FourVarsFeedThrough`:
/// sets both inputs and reads them back through the outputs (batches of 1 and 2 values).
fn feed_through_round(
    instance: &mut Instance,
    flag: bool,
    text: &str,
    flags: &mut [bool; 2],
    texts: &mut [String; 2],
) {
    use feed_through::*;
    instance.set_boolean(&[IN_BOOL], &[flag]).unwrap();
    instance.set_string(&[IN_STRING], &[text]).unwrap();
    instance
        .get_boolean(&[OUT_BOOL, IN_BOOL], flags.as_mut_slice())
        .unwrap();
    instance
        .get_string(&[OUT_STRING, IN_STRING], texts.as_mut_slice())
        .unwrap();
    assert_eq!(*flags, [flag, flag]);
    assert_eq!([texts[0].as_str(), texts[1].as_str()], [text, text]);
}

/// FMI 2.0: after one warm-up call, get/set of Booleans and Strings allocate nothing; a longer
/// string grows the buffers once, and then nothing is allocated again.
#[test]
fn fmi2_boolean_and_string_calls_do_not_allocate_once_warm() {
    let tmp = tempfile::tempdir().unwrap();
    let mut instance = initialized_feed_through(tmp.path());

    let (mut flags, mut texts) = ([false; 2], [String::new(), String::new()]);
    for words in [["ping", "pong"], ["a longer text", "grows buffers"]] {
        feed_through_round(&mut instance, false, words[0], &mut flags, &mut texts);
        let allocations = allocations_during(|| {
            for i in 0..ROUNDS {
                let text = words[i % 2];
                feed_through_round(&mut instance, i % 3 == 0, text, &mut flags, &mut texts);
            }
        });
        assert_eq!(allocations, 0, "texts {words:?}");
    }
}

/// `Oscillator` (fmus/oscillator_fmi1), FMI 1.0.
mod oscillator {
    use fmi::ValueRef;

    /// Integer output: completed steps.
    pub const STEPS: ValueRef = ValueRef(8);
    /// Boolean output: `x > 0`.
    pub const POSITIVE: ValueRef = ValueRef(9);
    /// String parameter, settable before `fmiInitializeSlave` only.
    pub const LABEL: ValueRef = ValueRef(10);
    /// String output, equal to `label`.
    pub const TAG: ValueRef = ValueRef(11);
}

/// FMI 1.0: `fmiSetString` (before initialization), `fmiGetBoolean` and `fmiGetString`
/// allocate nothing once warm. The FMU has no settable Boolean, so `fmiSetBoolean` can only
/// fail. A failing `fmiSetInteger` takes the same path in the FMU and in this crate (the error
/// value, the FMU's log message) without a conversion buffer, so equal counts show that the
/// `fmiBoolean` buffer allocates nothing (a `Vec` per call would count one more).
#[test]
fn fmi1_boolean_and_string_calls_do_not_allocate_once_warm() {
    use oscillator::*;
    let tmp = tempfile::tempdir().unwrap();
    let fmu = load("Oscillator", tmp.path());
    let mut instance = fmu
        .instantiate("oscillator", &InstantiateOptions::default())
        .unwrap();
    instance.setup_experiment(None, 0.0, Some(10.0)).unwrap();

    let labels = ["label-a", "label-b"];
    instance.set_string(&[LABEL], &[labels[1]]).unwrap();
    let allocations = allocations_during(|| {
        for i in 0..ROUNDS {
            instance.set_string(&[LABEL], &[labels[i % 2]]).unwrap();
        }
    });
    assert_eq!(allocations, 0, "fmiSetString");

    instance.enter_initialization_mode().unwrap();
    let (mut positive, mut texts) = ([false], [String::new(), String::new()]);
    let mut read = |instance: &mut Instance| {
        instance.get_boolean(&[POSITIVE], &mut positive).unwrap();
        instance.get_string(&[TAG, LABEL], &mut texts).unwrap();
        assert_eq!(positive, [true]); // x(0) = x0 = 1 m
        assert_eq!(texts, [labels[1], labels[1]]);
    };
    read(&mut instance);
    let allocations = allocations_during(|| (0..ROUNDS).for_each(|_| read(&mut instance)));
    assert_eq!(allocations, 0, "fmiGetBoolean, fmiGetString");

    let failing = |instance: &mut Instance, boolean: bool| {
        let result = if boolean {
            instance.set_boolean(&[POSITIVE], &[true])
        } else {
            instance.set_integer(&[STEPS], &[1])
        };
        assert!(
            matches!(result, Err(Error::CallFailed { .. })),
            "{result:?}"
        );
    };
    failing(&mut instance, true);
    failing(&mut instance, false);
    let set_boolean = allocations_during(|| failing(&mut instance, true));
    let set_integer = allocations_during(|| failing(&mut instance, false));
    assert_eq!(set_boolean, set_integer, "fmiSetBoolean vs fmiSetInteger");
}

/// The checks that come before the buffers still hold: a NUL byte is refused before anything
/// is set, and the buffers stay usable (and allocation-free) afterwards.
#[test]
fn interior_nul_is_refused_and_the_buffers_stay_usable() {
    use feed_through::*;
    let tmp = tempfile::tempdir().unwrap();
    let mut instance = initialized_feed_through(tmp.path());

    instance.set_string(&[IN_STRING], &["before"]).unwrap();
    let error = instance
        .set_string(&[IN_STRING, IN_STRING], &["ok", "bad\0text"])
        .unwrap_err();
    assert!(
        matches!(error, Error::InteriorNul { index: 1, .. }),
        "{error}"
    );
    let mut texts = [String::new()];
    instance.get_string(&[OUT_STRING], &mut texts).unwrap();
    assert_eq!(texts, ["before"]);

    let (mut flags, mut two) = ([false; 2], [String::new(), String::new()]);
    feed_through_round(&mut instance, true, "after", &mut flags, &mut two);
    let allocations = allocations_during(|| {
        feed_through_round(&mut instance, false, "again", &mut flags, &mut two);
    });
    assert_eq!(allocations, 0);
}
