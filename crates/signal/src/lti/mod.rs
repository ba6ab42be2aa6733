//! Linear time-invariant systems: the representations and their responses ([`ltisys`]) and pole
//! placement ([`placepoles`]).

pub mod ltisys;
pub mod placepoles;
