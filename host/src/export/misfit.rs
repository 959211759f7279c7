//! A refused sample in words (`verify::fit::Misfit` is the rule; this is what error
//! 18's `message` says of it).

use crate::verify::fit::Misfit;
use std::fmt;

impl fmt::Display for Misfit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Misfit::RunEnded => write!(f, "the run has ended; it takes no more samples"),
            Misfit::TooManyInMessage { count, max } => {
                write!(f, "{count} samples in one message; at most {max}")
            }
            Misfit::ArmNotPlanned { label } => {
                write!(f, "arm {label} is not one of the run's plan")
            }
            Misfit::RepOutOfRange { rep, max } => {
                write!(f, "rep {rep} is beyond the plan's {max} reps")
            }
            Misfit::SizeNotPlanned {
                label,
                bytes,
                planned,
            } => {
                write!(f, "{label} sent {bytes} bytes; the plan sends {planned}")
            }
            Misfit::Repeated { label, rep } => write!(f, "rep {rep} of {label} was already stored"),
            Misfit::TooLarge { bytes, max } => {
                write!(
                    f,
                    "a sample of {bytes} bytes is over the {max} a stored sample may take"
                )
            }
            Misfit::RunFull { bytes, cap } => {
                write!(f, "the run has stored {bytes} bytes; its plan allows {cap}")
            }
        }
    }
}
