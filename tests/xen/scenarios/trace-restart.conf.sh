# SPDX-License-Identifier: GPL-2.0-only
# Scenario "trace-restart" (host side): an instance left by a fpusoakd that
# was killed is removed at the next start; someone else's is left alone.
# About 40 s of guest time (two daemon starts without churn); dom0 only:
# the soak already shows the instance in the domU.
SC_STAGES="dom0"
SC_BUDGET=90
