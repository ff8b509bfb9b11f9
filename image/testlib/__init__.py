"""image/test's library: the QEMU machine and its guest agent, QMP and event lines (machine, agent, qmp), the
card's capture and its pitch (audio), the run's own disks and card (disks), the fake Playola API (fakeapi),
what is tested on which arch (target), the .deb and image made when stale (build), the clock, log and
PASS:/FAIL: lines (log), and the suite that runs the checks of image/checks/ by the boots they need (suite)."""
