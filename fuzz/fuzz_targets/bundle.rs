#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| fixdex_fuzz::bundle(data));
