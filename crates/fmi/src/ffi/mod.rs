//! Raw FMI function tables (filled by the fmi helper).
