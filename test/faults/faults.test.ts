/**
 * The fault suites run one after another in this one file, so one test worker holds them: each
 * starts three gateway processes and its own Redis (a Cluster, for one), and side by side on a
 * small machine they would starve each other and the rest of the suite, which runs in the other
 * workers meanwhile.
 */
import './redis-standalone-faults.suite.js';
import './redis-network-faults.suite.js';
import './redis-failover-faults.suite.js';
