// (reserved for host-side helpers shared by host programs)
