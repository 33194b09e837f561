// Mixed CHLO broadcasting on ?-shaped operands (atan2 against a row, maximum against a 0-d scalar, integer
// shift_left of ?x1 against ?, polygamma, erf_inv), as the C++ chlo-legalize-to-stablehlo of jaxlib writes them:
// 137 shape.shape_of (every splat constant of the expansions), shape.broadcast, cstr_broadcastable, assuming.
// Concrete argument types for a run (stablehlo-refine-arguments types=...):
// types: tensor<3x4xf32>,tensor<4xf32>,tensor<f32>,tensor<3x1xi32>,tensor<4xi32>
module {
  func.func @main(%arg0: tensor<?x?xf32>, %arg1: tensor<?xf32>, %arg2: tensor<f32>, %arg3: tensor<?x1xi32>, %arg4: tensor<?xi32>) -> (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xi32>, tensor<?x?xf32>, tensor<?xf32>) {
    %0 = shape.shape_of %arg0 : tensor<?x?xf32> -> tensor<2xindex>
    %1 = shape.shape_of %arg1 : tensor<?xf32> -> tensor<1xindex>
    %2 = shape.cstr_broadcastable %0, %1 : tensor<2xindex>, tensor<1xindex>
    %3 = shape.assuming %2 -> (tensor<?x?xf32>) {
      %101 = shape.shape_of %arg0 : tensor<?x?xf32> -> tensor<2xindex>
      %102 = shape.shape_of %arg1 : tensor<?xf32> -> tensor<1xindex>
      %103 = shape.broadcast %101, %102 : tensor<2xindex>, tensor<1xindex> -> tensor<2xindex>
      %104 = stablehlo.dynamic_broadcast_in_dim %arg0, %103, dims = [0, 1] : (tensor<?x?xf32>, tensor<2xindex>) -> tensor<?x?xf32>
      %105 = stablehlo.dynamic_broadcast_in_dim %arg1, %103, dims = [1] : (tensor<?xf32>, tensor<2xindex>) -> tensor<?x?xf32>
      %106 = stablehlo.atan2 %104, %105 : tensor<?x?xf32>
      shape.assuming_yield %106 : tensor<?x?xf32>
    }
    %4 = shape.shape_of %arg0 : tensor<?x?xf32> -> tensor<2xindex>
    %5 = shape.shape_of %arg2 : tensor<f32> -> tensor<0xindex>
    %6 = shape.cstr_broadcastable %4, %5 : tensor<2xindex>, tensor<0xindex>
    %7 = shape.assuming %6 -> (tensor<?x?xf32>) {
      %101 = shape.shape_of %arg0 : tensor<?x?xf32> -> tensor<2xindex>
      %102 = shape.shape_of %arg2 : tensor<f32> -> tensor<0xindex>
      %103 = shape.broadcast %101, %102 : tensor<2xindex>, tensor<0xindex> -> tensor<2xindex>
      %104 = stablehlo.dynamic_broadcast_in_dim %arg0, %103, dims = [0, 1] : (tensor<?x?xf32>, tensor<2xindex>) -> tensor<?x?xf32>
      %105 = stablehlo.dynamic_broadcast_in_dim %arg2, %103, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
      %106 = stablehlo.maximum %104, %105 : tensor<?x?xf32>
      shape.assuming_yield %106 : tensor<?x?xf32>
    }
    %8 = shape.shape_of %arg3 : tensor<?x1xi32> -> tensor<2xindex>
    %9 = shape.shape_of %arg4 : tensor<?xi32> -> tensor<1xindex>
    %10 = shape.cstr_broadcastable %8, %9 : tensor<2xindex>, tensor<1xindex>
    %11 = shape.assuming %10 -> (tensor<?x?xi32>) {
      %101 = shape.shape_of %arg3 : tensor<?x1xi32> -> tensor<2xindex>
      %102 = shape.shape_of %arg4 : tensor<?xi32> -> tensor<1xindex>
      %103 = shape.broadcast %101, %102 : tensor<2xindex>, tensor<1xindex> -> tensor<2xindex>
      %104 = stablehlo.dynamic_broadcast_in_dim %arg3, %103, dims = [0, 1] : (tensor<?x1xi32>, tensor<2xindex>) -> tensor<?x?xi32>
      %105 = stablehlo.dynamic_broadcast_in_dim %arg4, %103, dims = [1] : (tensor<?xi32>, tensor<2xindex>) -> tensor<?x?xi32>
      %106 = stablehlo.shift_left %104, %105 : tensor<?x?xi32>
      shape.assuming_yield %106 : tensor<?x?xi32>
    }
    %12 = shape.shape_of %arg0 : tensor<?x?xf32> -> tensor<2xindex>
    %13 = shape.shape_of %arg1 : tensor<?xf32> -> tensor<1xindex>
    %14 = shape.cstr_broadcastable %12, %13 : tensor<2xindex>, tensor<1xindex>
    %15 = shape.assuming %14 -> (tensor<?x?xf32>) {
      %101 = shape.shape_of %arg0 : tensor<?x?xf32> -> tensor<2xindex>
      %102 = shape.shape_of %arg1 : tensor<?xf32> -> tensor<1xindex>
      %103 = shape.broadcast %101, %102 : tensor<2xindex>, tensor<1xindex> -> tensor<2xindex>
      %104 = stablehlo.dynamic_broadcast_in_dim %arg0, %103, dims = [0, 1] : (tensor<?x?xf32>, tensor<2xindex>) -> tensor<?x?xf32>
      %105 = stablehlo.dynamic_broadcast_in_dim %arg1, %103, dims = [1] : (tensor<?xf32>, tensor<2xindex>) -> tensor<?x?xf32>
      %cst_22 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %106 = shape.shape_of %105 : tensor<?x?xf32> -> tensor<2xindex>
      %107 = stablehlo.dynamic_broadcast_in_dim %cst_22, %106, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
      %cst_23 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
      %108 = shape.shape_of %105 : tensor<?x?xf32> -> tensor<2xindex>
      %109 = stablehlo.dynamic_broadcast_in_dim %cst_23, %108, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
      %110 = stablehlo.remainder %104, %109 : tensor<?x?xf32>
      %111 = stablehlo.multiply %109, %110 : tensor<?x?xf32>
      %112 = stablehlo.subtract %111, %107 : tensor<?x?xf32>
      %113 = stablehlo.add %104, %107 : tensor<?x?xf32>
      %cst_24 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
      %114 = shape.shape_of %113 : tensor<?x?xf32> -> tensor<2xindex>
      %115 = stablehlo.dynamic_broadcast_in_dim %cst_24, %114, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
      %116 = stablehlo.compare LT, %113, %115 : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xi1>
      %117 = stablehlo.negate %113 : tensor<?x?xf32>
      %cst_25 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %118 = shape.shape_of %113 : tensor<?x?xf32> -> tensor<2xindex>
      %119 = stablehlo.dynamic_broadcast_in_dim %cst_25, %118, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
      %120 = stablehlo.subtract %113, %119 : tensor<?x?xf32>
      %121 = stablehlo.select %116, %117, %120 : tensor<?x?xi1>, tensor<?x?xf32>
      %cst_26 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %122 = shape.shape_of %113 : tensor<?x?xf32> -> tensor<2xindex>
      %123 = stablehlo.dynamic_broadcast_in_dim %cst_26, %122, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
      %cst_27 = stablehlo.constant dense<676.520386> : tensor<f32>
      %124 = shape.shape_of %113 : tensor<?x?xf32> -> tensor<2xindex>
      %125 = stablehlo.dynamic_broadcast_in_dim %cst_27, %124, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
      %cst_28 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %126 = shape.shape_of %113 : tensor<?x?xf32> -> tensor<2xindex>
      %127 = stablehlo.dynamic_broadcast_in_dim %cst_28, %126, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
      %128 = stablehlo.add %121, %127 : tensor<?x?xf32>
      %129 = stablehlo.divide %125, %128 : tensor<?x?xf32>
      %130 = stablehlo.add %123, %129 : tensor<?x?xf32>
      %cst_29 = stablehlo.constant dense<-1259.13916> : tensor<f32>
      %131 = shape.shape_of %113 : tensor<?x?xf32> -> tensor<2xindex>
      %132 = stablehlo.dynamic_broadcast_in_dim %cst_29, %131, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
      %cst_30 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
      %133 = shape.shape_of %113 : tensor<?x?xf32> -> tensor<2xindex>
      %134 = stablehlo.dynamic_broadcast_in_dim %cst_30, %133, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
      %135 = stablehlo.add %121, %134 : tensor<?x?xf32>
      %136 = stablehlo.divide %132, %135 : tensor<?x?xf32>
      %137 = stablehlo.add %130, %136 : tensor<?x?xf32>
      %cst_31 = stablehlo.constant dense<771.323425> : tensor<f32>
      %138 = shape.shape_of %113 : tensor<?x?xf32> -> tensor<2xindex>
      %139 = stablehlo.dynamic_broadcast_in_dim %cst_31, %138, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
      %cst_32 = stablehlo.constant dense<3.000000e+00> : tensor<f32>
      %140 = shape.shape_of %113 : tensor<?x?xf32> -> tensor<2xindex>
      %141 = stablehlo.dynamic_broadcast_in_dim %cst_32, %140, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
      %142 = stablehlo.add %121, %141 : tensor<?x?xf32>
      %143 = stablehlo.divide %139, %142 : tensor<?x?xf32>
      %144 = stablehlo.add %137, %143 : tensor<?x?xf32>
      %cst_33 = stablehlo.constant dense<-176.615036> : tensor<f32>
      %145 = shape.shape_of %113 : tensor<?x?xf32> -> tensor<2xindex>
      %146 = stablehlo.dynamic_broadcast_in_dim %cst_33, %145, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
      %cst_34 = stablehlo.constant dense<4.000000e+00> : tensor<f32>
      %147 = shape.shape_of %113 : tensor<?x?xf32> -> tensor<2xindex>
      %148 = stablehlo.dynamic_broadcast_in_dim %cst_34, %147, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
      %149 = stablehlo.add %121, %148 : tensor<?x?xf32>
      %150 = stablehlo.divide %146, %149 : tensor<?x?xf32>
      %151 = stablehlo.add %144, %150 : tensor<?x?xf32>
      %cst_35 = stablehlo.constant dense<12.5073433> : tensor<f32>
      %152 = shape.shape_of %113 : tensor<?x?xf32> -> tensor<2xindex>
      %153 = stablehlo.dynamic_broadcast_in_dim %cst_35, %152, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
      %cst_36 = stablehlo.constant dense<5.000000e+00> : tensor<f32>
      %154 = shape.shape_of %113 : tensor<?x?xf32> -> tensor<2xindex>
      %155 = stablehlo.dynamic_broadcast_in_dim %cst_36, %154, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
      %156 = stablehlo.add %121, %155 : tensor<?x?xf32>
      %157 = stablehlo.divide %153, %156 : tensor<?x?xf32>
      %158 = stablehlo.add %151, %157 : tensor<?x?xf32>
      %cst_37 = stablehlo.constant dense<-0.138571098> : tensor<f32>
      %159 = shape.shape_of %113 : tensor<?x?xf32> -> tensor<2xindex>
      %160 = stablehlo.dynamic_broadcast_in_dim %cst_37, %159, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
      %cst_38 = stablehlo.constant dense<6.000000e+00> : tensor<f32>
      %161 = shape.shape_of %113 : tensor<?x?xf32> -> tensor<2xindex>
      %162 = stablehlo.dynamic_broadcast_in_dim %cst_38, %161, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
      %163 = stablehlo.add %121, %162 : tensor<?x?xf32>
      %164 = stablehlo.divide %160, %163 : tensor<?x?xf32>
      %165 = stablehlo.add %158, %164 : tensor<?x?xf32>
      %cst_39 = stablehlo.constant dense<9.98436917E-6> : tensor<f32>
      %166 = shape.shape_of %113 : tensor<?x?xf32> -> tensor<2xindex>
      %167 = stablehlo.dynamic_broadcast_in_dim %cst_39, %166, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
      %cst_40 = stablehlo.constant dense<7.000000e+00> : tensor<f32>
      %168 = shape.shape_of %113 : tensor<?x?xf32> -> tensor<2xindex>
      %169 = stablehlo.dynamic_broadcast_in_dim %cst_40, %168, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
      %170 = stablehlo.add %121, %169 : tensor<?x?xf32>
      %171 = stablehlo.divide %167, %170 : tensor<?x?xf32>
      %172 = stablehlo.add %165, %171 : tensor<?x?xf32>
      %cst_41 = stablehlo.constant dense<1.50563267E-7> : tensor<f32>
      %173 = shape.shape_of %113 : tensor<?x?xf32> -> tensor<2xindex>
      %174 = stablehlo.dynamic_broadcast_in_dim %cst_41, %173, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
      %cst_42 = stablehlo.constant dense<8.000000e+00> : tensor<f32>
      %175 = shape.shape_of %113 : tensor<?x?xf32> -> tensor<2xindex>
      %176 = stablehlo.dynamic_broadcast_in_dim %cst_42, %175, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
      %177 = stablehlo.add %121, %176 : tensor<?x?xf32>
      %178 = stablehlo.divide %174, %177 : tensor<?x?xf32>
      %179 = stablehlo.add %172, %178 : tensor<?x?xf32>
      %cst_43 = stablehlo.constant dense<7.500000e+00> : tensor<f32>
      %180 = shape.shape_of %113 : tensor<?x?xf32> -> tensor<2xindex>
      %181 = stablehlo.dynamic_broadcast_in_dim %cst_43, %180, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
      %182 = stablehlo.add %181, %121 : tensor<?x?xf32>
      %cst_44 = stablehlo.constant dense<2.01490307> : tensor<f32>
      %183 = shape.shape_of %113 : tensor<?x?xf32> -> tensor<2xindex>
      %184 = stablehlo.dynamic_broadcast_in_dim %cst_44, %183, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
      %185 = stablehlo.divide %121, %181 : tensor<?x?xf32>
      %186 = stablehlo.log_plus_one %185 : tensor<?x?xf32>
      %187 = stablehlo.add %184, %186 : tensor<?x?xf32>
      %188 = stablehlo.divide %182, %187 : tensor<?x?xf32>
      %189 = stablehlo.add %121, %115 : tensor<?x?xf32>
      %190 = stablehlo.subtract %189, %188 : tensor<?x?xf32>
      %191 = stablehlo.multiply %190, %187 : tensor<?x?xf32>
      %192 = stablehlo.log %179 : tensor<?x?xf32>
      %cst_45 = stablehlo.constant dense<0.918938517> : tensor<f32>
      %193 = shape.shape_of %113 : tensor<?x?xf32> -> tensor<2xindex>
      %194 = stablehlo.dynamic_broadcast_in_dim %cst_45, %193, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
      %195 = stablehlo.add %194, %191 : tensor<?x?xf32>
      %196 = stablehlo.add %195, %192 : tensor<?x?xf32>
      %197 = stablehlo.abs %113 : tensor<?x?xf32>
      %198 = stablehlo.floor %197 : tensor<?x?xf32>
      %199 = stablehlo.subtract %197, %198 : tensor<?x?xf32>
      %200 = stablehlo.compare LT, %115, %199 : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xi1>
      %201 = stablehlo.subtract %119, %199 : tensor<?x?xf32>
      %202 = stablehlo.select %200, %201, %199 : tensor<?x?xi1>, tensor<?x?xf32>
      %cst_46 = stablehlo.constant dense<3.14159274> : tensor<f32>
      %203 = shape.shape_of %113 : tensor<?x?xf32> -> tensor<2xindex>
      %204 = stablehlo.dynamic_broadcast_in_dim %cst_46, %203, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
      %205 = stablehlo.multiply %204, %202 : tensor<?x?xf32>
      %206 = stablehlo.sine %205 : tensor<?x?xf32>
      %207 = stablehlo.log %206 : tensor<?x?xf32>
      %cst_47 = stablehlo.constant dense<1.14472985> : tensor<f32>
      %208 = shape.shape_of %113 : tensor<?x?xf32> -> tensor<2xindex>
      %209 = stablehlo.dynamic_broadcast_in_dim %cst_47, %208, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
      %210 = stablehlo.subtract %209, %207 : tensor<?x?xf32>
      %211 = stablehlo.subtract %210, %196 : tensor<?x?xf32>
      %212 = stablehlo.is_finite %207 : (tensor<?x?xf32>) -> tensor<?x?xi1>
      %213 = stablehlo.negate %207 : tensor<?x?xf32>
      %214 = stablehlo.select %212, %211, %213 : tensor<?x?xi1>, tensor<?x?xf32>
      %215 = stablehlo.select %116, %214, %196 : tensor<?x?xi1>, tensor<?x?xf32>
      %216 = stablehlo.abs %113 : tensor<?x?xf32>
      %cst_48 = stablehlo.constant dense<0x7F800000> : tensor<f32>
      %217 = shape.shape_of %216 : tensor<?x?xf32> -> tensor<2xindex>
      %218 = stablehlo.dynamic_broadcast_in_dim %cst_48, %217, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
      %219 = stablehlo.compare EQ, %216, %218 : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xi1>
      %cst_49 = stablehlo.constant dense<0x7F800000> : tensor<f32>
      %220 = shape.shape_of %113 : tensor<?x?xf32> -> tensor<2xindex>
      %221 = stablehlo.dynamic_broadcast_in_dim %cst_49, %220, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
      %222 = stablehlo.select %219, %221, %215 : tensor<?x?xi1>, tensor<?x?xf32>
      %223 = stablehlo.exponential %222 : tensor<?x?xf32>
      %cst_50 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %224 = shape.shape_of %105 : tensor<?x?xf32> -> tensor<2xindex>
      %225 = stablehlo.dynamic_broadcast_in_dim %cst_50, %224, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
      %cst_51 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %226 = shape.shape_of %105 : tensor<?x?xf32> -> tensor<2xindex>
      %227 = stablehlo.dynamic_broadcast_in_dim %cst_51, %226, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
      %228 = stablehlo.negate %113 : tensor<?x?xf32>
      %229 = stablehlo.power %105, %228 : tensor<?x?xf32>
      %230 = stablehlo.add %105, %227 : tensor<?x?xf32>
      %231 = stablehlo.power %230, %228 : tensor<?x?xf32>
      %232 = stablehlo.add %229, %231 : tensor<?x?xf32>
      %233 = stablehlo.add %230, %227 : tensor<?x?xf32>
      %234 = stablehlo.power %233, %228 : tensor<?x?xf32>
      %235 = stablehlo.add %232, %234 : tensor<?x?xf32>
      %236 = stablehlo.add %233, %227 : tensor<?x?xf32>
      %237 = stablehlo.power %236, %228 : tensor<?x?xf32>
      %238 = stablehlo.add %235, %237 : tensor<?x?xf32>
      %239 = stablehlo.add %236, %227 : tensor<?x?xf32>
      %240 = stablehlo.power %239, %228 : tensor<?x?xf32>
      %241 = stablehlo.add %238, %240 : tensor<?x?xf32>
      %242 = stablehlo.add %239, %227 : tensor<?x?xf32>
      %243 = stablehlo.power %242, %228 : tensor<?x?xf32>
      %244 = stablehlo.add %241, %243 : tensor<?x?xf32>
      %245 = stablehlo.add %242, %227 : tensor<?x?xf32>
      %246 = stablehlo.power %245, %228 : tensor<?x?xf32>
      %247 = stablehlo.add %244, %246 : tensor<?x?xf32>
      %248 = stablehlo.add %245, %227 : tensor<?x?xf32>
      %249 = stablehlo.power %248, %228 : tensor<?x?xf32>
      %250 = stablehlo.add %247, %249 : tensor<?x?xf32>
      %251 = stablehlo.add %248, %227 : tensor<?x?xf32>
      %252 = stablehlo.power %251, %228 : tensor<?x?xf32>
      %253 = stablehlo.add %250, %252 : tensor<?x?xf32>
      %254 = stablehlo.add %251, %227 : tensor<?x?xf32>
      %255 = stablehlo.power %254, %228 : tensor<?x?xf32>
      %256 = stablehlo.add %253, %255 : tensor<?x?xf32>
      %257 = stablehlo.add %254, %227 : tensor<?x?xf32>
      %258 = stablehlo.power %257, %228 : tensor<?x?xf32>
      %cst_52 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %259 = shape.shape_of %113 : tensor<?x?xf32> -> tensor<2xindex>
      %260 = stablehlo.dynamic_broadcast_in_dim %cst_52, %259, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
      %261 = stablehlo.multiply %258, %257 : tensor<?x?xf32>
      %262 = stablehlo.subtract %113, %260 : tensor<?x?xf32>
      %263 = stablehlo.divide %261, %262 : tensor<?x?xf32>
      %264 = stablehlo.multiply %257, %257 : tensor<?x?xf32>
      %265 = stablehlo.divide %227, %264 : tensor<?x?xf32>
      %cst_53 = stablehlo.constant dense<2.200000e+01> : tensor<f32>
      %266 = shape.shape_of %113 : tensor<?x?xf32> -> tensor<2xindex>
      %267 = stablehlo.dynamic_broadcast_in_dim %cst_53, %266, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
      %268 = stablehlo.add %113, %267 : tensor<?x?xf32>
      %cst_54 = stablehlo.constant dense<2.100000e+01> : tensor<f32>
      %269 = shape.shape_of %113 : tensor<?x?xf32> -> tensor<2xindex>
      %270 = stablehlo.dynamic_broadcast_in_dim %cst_54, %269, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
      %271 = stablehlo.add %113, %270 : tensor<?x?xf32>
      %272 = stablehlo.multiply %268, %271 : tensor<?x?xf32>
      %cst_55 = stablehlo.constant dense<-1.39544646E-19> : tensor<f32>
      %273 = shape.shape_of %257 : tensor<?x?xf32> -> tensor<2xindex>
      %274 = stablehlo.dynamic_broadcast_in_dim %cst_55, %273, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
      %275 = stablehlo.add %225, %274 : tensor<?x?xf32>
      %276 = stablehlo.multiply %265, %275 : tensor<?x?xf32>
      %277 = stablehlo.multiply %272, %276 : tensor<?x?xf32>
      %cst_56 = stablehlo.constant dense<2.000000e+01> : tensor<f32>
      %278 = shape.shape_of %113 : tensor<?x?xf32> -> tensor<2xindex>
      %279 = stablehlo.dynamic_broadcast_in_dim %cst_56, %278, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
      %280 = stablehlo.add %113, %279 : tensor<?x?xf32>
      %cst_57 = stablehlo.constant dense<1.900000e+01> : tensor<f32>
      %281 = shape.shape_of %113 : tensor<?x?xf32> -> tensor<2xindex>
      %282 = stablehlo.dynamic_broadcast_in_dim %cst_57, %281, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
      %283 = stablehlo.add %113, %282 : tensor<?x?xf32>
      %284 = stablehlo.multiply %280, %283 : tensor<?x?xf32>
      %cst_58 = stablehlo.constant dense<5.50900303E-18> : tensor<f32>
      %285 = shape.shape_of %257 : tensor<?x?xf32> -> tensor<2xindex>
      %286 = stablehlo.dynamic_broadcast_in_dim %cst_58, %285, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
      %287 = stablehlo.add %277, %286 : tensor<?x?xf32>
      %288 = stablehlo.multiply %265, %287 : tensor<?x?xf32>
      %289 = stablehlo.multiply %284, %288 : tensor<?x?xf32>
      %cst_59 = stablehlo.constant dense<1.800000e+01> : tensor<f32>
      %290 = shape.shape_of %113 : tensor<?x?xf32> -> tensor<2xindex>
      %291 = stablehlo.dynamic_broadcast_in_dim %cst_59, %290, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
      %292 = stablehlo.add %113, %291 : tensor<?x?xf32>
      %cst_60 = stablehlo.constant dense<1.700000e+01> : tensor<f32>
      %293 = shape.shape_of %113 : tensor<?x?xf32> -> tensor<2xindex>
      %294 = stablehlo.dynamic_broadcast_in_dim %cst_60, %293, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
      %295 = stablehlo.add %113, %294 : tensor<?x?xf32>
      %296 = stablehlo.multiply %292, %295 : tensor<?x?xf32>
      %cst_61 = stablehlo.constant dense<-2.17486866E-16> : tensor<f32>
      %297 = shape.shape_of %257 : tensor<?x?xf32> -> tensor<2xindex>
      %298 = stablehlo.dynamic_broadcast_in_dim %cst_61, %297, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
      %299 = stablehlo.add %289, %298 : tensor<?x?xf32>
      %300 = stablehlo.multiply %265, %299 : tensor<?x?xf32>
      %301 = stablehlo.multiply %296, %300 : tensor<?x?xf32>
      %cst_62 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
      %302 = shape.shape_of %113 : tensor<?x?xf32> -> tensor<2xindex>
      %303 = stablehlo.dynamic_broadcast_in_dim %cst_62, %302, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
      %304 = stablehlo.add %113, %303 : tensor<?x?xf32>
      %cst_63 = stablehlo.constant dense<1.500000e+01> : tensor<f32>
      %305 = shape.shape_of %113 : tensor<?x?xf32> -> tensor<2xindex>
      %306 = stablehlo.dynamic_broadcast_in_dim %cst_63, %305, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
      %307 = stablehlo.add %113, %306 : tensor<?x?xf32>
      %308 = stablehlo.multiply %304, %307 : tensor<?x?xf32>
      %cst_64 = stablehlo.constant dense<8.58606213E-15> : tensor<f32>
      %309 = shape.shape_of %257 : tensor<?x?xf32> -> tensor<2xindex>
      %310 = stablehlo.dynamic_broadcast_in_dim %cst_64, %309, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
      %311 = stablehlo.add %301, %310 : tensor<?x?xf32>
      %312 = stablehlo.multiply %265, %311 : tensor<?x?xf32>
      %313 = stablehlo.multiply %308, %312 : tensor<?x?xf32>
      %cst_65 = stablehlo.constant dense<1.400000e+01> : tensor<f32>
      %314 = shape.shape_of %113 : tensor<?x?xf32> -> tensor<2xindex>
      %315 = stablehlo.dynamic_broadcast_in_dim %cst_65, %314, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
      %316 = stablehlo.add %113, %315 : tensor<?x?xf32>
      %cst_66 = stablehlo.constant dense<1.300000e+01> : tensor<f32>
      %317 = shape.shape_of %113 : tensor<?x?xf32> -> tensor<2xindex>
      %318 = stablehlo.dynamic_broadcast_in_dim %cst_66, %317, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
      %319 = stablehlo.add %113, %318 : tensor<?x?xf32>
      %320 = stablehlo.multiply %316, %319 : tensor<?x?xf32>
      %cst_67 = stablehlo.constant dense<-3.3896803E-13> : tensor<f32>
      %321 = shape.shape_of %257 : tensor<?x?xf32> -> tensor<2xindex>
      %322 = stablehlo.dynamic_broadcast_in_dim %cst_67, %321, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
      %323 = stablehlo.add %313, %322 : tensor<?x?xf32>
      %324 = stablehlo.multiply %265, %323 : tensor<?x?xf32>
      %325 = stablehlo.multiply %320, %324 : tensor<?x?xf32>
      %cst_68 = stablehlo.constant dense<1.200000e+01> : tensor<f32>
      %326 = shape.shape_of %113 : tensor<?x?xf32> -> tensor<2xindex>
      %327 = stablehlo.dynamic_broadcast_in_dim %cst_68, %326, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
      %328 = stablehlo.add %113, %327 : tensor<?x?xf32>
      %cst_69 = stablehlo.constant dense<1.100000e+01> : tensor<f32>
      %329 = shape.shape_of %113 : tensor<?x?xf32> -> tensor<2xindex>
      %330 = stablehlo.dynamic_broadcast_in_dim %cst_69, %329, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
      %331 = stablehlo.add %113, %330 : tensor<?x?xf32>
      %332 = stablehlo.multiply %328, %331 : tensor<?x?xf32>
      %cst_70 = stablehlo.constant dense<1.33825364E-11> : tensor<f32>
      %333 = shape.shape_of %257 : tensor<?x?xf32> -> tensor<2xindex>
      %334 = stablehlo.dynamic_broadcast_in_dim %cst_70, %333, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
      %335 = stablehlo.add %325, %334 : tensor<?x?xf32>
      %336 = stablehlo.multiply %265, %335 : tensor<?x?xf32>
      %337 = stablehlo.multiply %332, %336 : tensor<?x?xf32>
      %cst_71 = stablehlo.constant dense<1.000000e+01> : tensor<f32>
      %338 = shape.shape_of %113 : tensor<?x?xf32> -> tensor<2xindex>
      %339 = stablehlo.dynamic_broadcast_in_dim %cst_71, %338, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
      %340 = stablehlo.add %113, %339 : tensor<?x?xf32>
      %cst_72 = stablehlo.constant dense<9.000000e+00> : tensor<f32>
      %341 = shape.shape_of %113 : tensor<?x?xf32> -> tensor<2xindex>
      %342 = stablehlo.dynamic_broadcast_in_dim %cst_72, %341, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
      %343 = stablehlo.add %113, %342 : tensor<?x?xf32>
      %344 = stablehlo.multiply %340, %343 : tensor<?x?xf32>
      %cst_73 = stablehlo.constant dense<-5.28419031E-10> : tensor<f32>
      %345 = shape.shape_of %257 : tensor<?x?xf32> -> tensor<2xindex>
      %346 = stablehlo.dynamic_broadcast_in_dim %cst_73, %345, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
      %347 = stablehlo.add %337, %346 : tensor<?x?xf32>
      %348 = stablehlo.multiply %265, %347 : tensor<?x?xf32>
      %349 = stablehlo.multiply %344, %348 : tensor<?x?xf32>
      %cst_74 = stablehlo.constant dense<8.000000e+00> : tensor<f32>
      %350 = shape.shape_of %113 : tensor<?x?xf32> -> tensor<2xindex>
      %351 = stablehlo.dynamic_broadcast_in_dim %cst_74, %350, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
      %352 = stablehlo.add %113, %351 : tensor<?x?xf32>
      %cst_75 = stablehlo.constant dense<7.000000e+00> : tensor<f32>
      %353 = shape.shape_of %113 : tensor<?x?xf32> -> tensor<2xindex>
      %354 = stablehlo.dynamic_broadcast_in_dim %cst_75, %353, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
      %355 = stablehlo.add %113, %354 : tensor<?x?xf32>
      %356 = stablehlo.multiply %352, %355 : tensor<?x?xf32>
      %cst_76 = stablehlo.constant dense<2.08767563E-8> : tensor<f32>
      %357 = shape.shape_of %257 : tensor<?x?xf32> -> tensor<2xindex>
      %358 = stablehlo.dynamic_broadcast_in_dim %cst_76, %357, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
      %359 = stablehlo.add %349, %358 : tensor<?x?xf32>
      %360 = stablehlo.multiply %265, %359 : tensor<?x?xf32>
      %361 = stablehlo.multiply %356, %360 : tensor<?x?xf32>
      %cst_77 = stablehlo.constant dense<6.000000e+00> : tensor<f32>
      %362 = shape.shape_of %113 : tensor<?x?xf32> -> tensor<2xindex>
      %363 = stablehlo.dynamic_broadcast_in_dim %cst_77, %362, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
      %364 = stablehlo.add %113, %363 : tensor<?x?xf32>
      %cst_78 = stablehlo.constant dense<5.000000e+00> : tensor<f32>
      %365 = shape.shape_of %113 : tensor<?x?xf32> -> tensor<2xindex>
      %366 = stablehlo.dynamic_broadcast_in_dim %cst_78, %365, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
      %367 = stablehlo.add %113, %366 : tensor<?x?xf32>
      %368 = stablehlo.multiply %364, %367 : tensor<?x?xf32>
      %cst_79 = stablehlo.constant dense<-8.26719599E-7> : tensor<f32>
      %369 = shape.shape_of %257 : tensor<?x?xf32> -> tensor<2xindex>
      %370 = stablehlo.dynamic_broadcast_in_dim %cst_79, %369, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
      %371 = stablehlo.add %361, %370 : tensor<?x?xf32>
      %372 = stablehlo.multiply %265, %371 : tensor<?x?xf32>
      %373 = stablehlo.multiply %368, %372 : tensor<?x?xf32>
      %cst_80 = stablehlo.constant dense<4.000000e+00> : tensor<f32>
      %374 = shape.shape_of %113 : tensor<?x?xf32> -> tensor<2xindex>
      %375 = stablehlo.dynamic_broadcast_in_dim %cst_80, %374, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
      %376 = stablehlo.add %113, %375 : tensor<?x?xf32>
      %cst_81 = stablehlo.constant dense<3.000000e+00> : tensor<f32>
      %377 = shape.shape_of %113 : tensor<?x?xf32> -> tensor<2xindex>
      %378 = stablehlo.dynamic_broadcast_in_dim %cst_81, %377, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
      %379 = stablehlo.add %113, %378 : tensor<?x?xf32>
      %380 = stablehlo.multiply %376, %379 : tensor<?x?xf32>
      %cst_82 = stablehlo.constant dense<3.30687835E-5> : tensor<f32>
      %381 = shape.shape_of %257 : tensor<?x?xf32> -> tensor<2xindex>
      %382 = stablehlo.dynamic_broadcast_in_dim %cst_82, %381, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
      %383 = stablehlo.add %373, %382 : tensor<?x?xf32>
      %384 = stablehlo.multiply %265, %383 : tensor<?x?xf32>
      %385 = stablehlo.multiply %380, %384 : tensor<?x?xf32>
      %cst_83 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
      %386 = shape.shape_of %113 : tensor<?x?xf32> -> tensor<2xindex>
      %387 = stablehlo.dynamic_broadcast_in_dim %cst_83, %386, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
      %388 = stablehlo.add %113, %387 : tensor<?x?xf32>
      %cst_84 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %389 = shape.shape_of %113 : tensor<?x?xf32> -> tensor<2xindex>
      %390 = stablehlo.dynamic_broadcast_in_dim %cst_84, %389, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
      %391 = stablehlo.add %113, %390 : tensor<?x?xf32>
      %392 = stablehlo.multiply %388, %391 : tensor<?x?xf32>
      %cst_85 = stablehlo.constant dense<-0.00138888892> : tensor<f32>
      %393 = shape.shape_of %257 : tensor<?x?xf32> -> tensor<2xindex>
      %394 = stablehlo.dynamic_broadcast_in_dim %cst_85, %393, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
      %395 = stablehlo.add %385, %394 : tensor<?x?xf32>
      %396 = stablehlo.multiply %265, %395 : tensor<?x?xf32>
      %397 = stablehlo.multiply %392, %396 : tensor<?x?xf32>
      %cst_86 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
      %398 = shape.shape_of %258 : tensor<?x?xf32> -> tensor<2xindex>
      %399 = stablehlo.dynamic_broadcast_in_dim %cst_86, %398, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
      %400 = stablehlo.divide %113, %257 : tensor<?x?xf32>
      %cst_87 = stablehlo.constant dense<0.0833333358> : tensor<f32>
      %401 = shape.shape_of %257 : tensor<?x?xf32> -> tensor<2xindex>
      %402 = stablehlo.dynamic_broadcast_in_dim %cst_87, %401, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
      %403 = stablehlo.add %402, %397 : tensor<?x?xf32>
      %404 = stablehlo.multiply %400, %403 : tensor<?x?xf32>
      %405 = stablehlo.add %399, %404 : tensor<?x?xf32>
      %406 = stablehlo.multiply %258, %405 : tensor<?x?xf32>
      %407 = stablehlo.add %256, %263 : tensor<?x?xf32>
      %408 = stablehlo.add %407, %406 : tensor<?x?xf32>
      %409 = stablehlo.abs %258 : tensor<?x?xf32>
      %410 = stablehlo.abs %256 : tensor<?x?xf32>
      %cst_88 = stablehlo.constant dense<1.401300e-45> : tensor<f32>
      %411 = shape.shape_of %257 : tensor<?x?xf32> -> tensor<2xindex>
      %412 = stablehlo.dynamic_broadcast_in_dim %cst_88, %411, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
      %413 = stablehlo.multiply %410, %412 : tensor<?x?xf32>
      %414 = stablehlo.compare LT, %409, %413 : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xi1>
      %415 = stablehlo.select %414, %256, %408 : tensor<?x?xi1>, tensor<?x?xf32>
      %cst_89 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
      %416 = shape.shape_of %113 : tensor<?x?xf32> -> tensor<2xindex>
      %417 = stablehlo.dynamic_broadcast_in_dim %cst_89, %416, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
      %418 = stablehlo.compare LT, %113, %260 : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xi1>
      %419 = stablehlo.select %418, %417, %415 : tensor<?x?xi1>, tensor<?x?xf32>
      %420 = stablehlo.compare LE, %105, %225 : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xi1>
      %421 = stablehlo.floor %113 : tensor<?x?xf32>
      %422 = stablehlo.compare NE, %113, %421 : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xi1>
      %423 = stablehlo.and %420, %422 : tensor<?x?xi1>
      %424 = stablehlo.select %423, %417, %419 : tensor<?x?xi1>, tensor<?x?xf32>
      %cst_90 = stablehlo.constant dense<0x7F800000> : tensor<f32>
      %425 = shape.shape_of %113 : tensor<?x?xf32> -> tensor<2xindex>
      %426 = stablehlo.dynamic_broadcast_in_dim %cst_90, %425, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
      %427 = stablehlo.floor %105 : tensor<?x?xf32>
      %428 = stablehlo.compare EQ, %105, %427 : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xi1>
      %429 = stablehlo.and %420, %428 : tensor<?x?xi1>
      %cst_91 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
      %430 = shape.shape_of %113 : tensor<?x?xf32> -> tensor<2xindex>
      %431 = stablehlo.dynamic_broadcast_in_dim %cst_91, %430, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
      %432 = stablehlo.floor %113 : tensor<?x?xf32>
      %433 = stablehlo.compare EQ, %113, %432 : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xi1>
      %434 = stablehlo.remainder %113, %431 : tensor<?x?xf32>
      %435 = stablehlo.compare EQ, %434, %225 : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xi1>
      %436 = stablehlo.and %433, %435 : tensor<?x?xi1>
      %437 = stablehlo.select %436, %426, %417 : tensor<?x?xi1>, tensor<?x?xf32>
      %438 = stablehlo.select %429, %437, %424 : tensor<?x?xi1>, tensor<?x?xf32>
      %439 = stablehlo.compare EQ, %113, %227 : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xi1>
      %440 = stablehlo.select %439, %426, %438 : tensor<?x?xi1>, tensor<?x?xf32>
      %441 = stablehlo.multiply %112, %223 : tensor<?x?xf32>
      %442 = stablehlo.multiply %441, %440 : tensor<?x?xf32>
      %cst_92 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %443 = shape.shape_of %105 : tensor<?x?xf32> -> tensor<2xindex>
      %444 = stablehlo.dynamic_broadcast_in_dim %cst_92, %443, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
      %445 = stablehlo.compare EQ, %104, %444 : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xi1>
      %cst_93 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
      %446 = shape.shape_of %105 : tensor<?x?xf32> -> tensor<2xindex>
      %447 = stablehlo.dynamic_broadcast_in_dim %cst_93, %446, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
      %448 = stablehlo.compare LT, %105, %447 : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xi1>
      %449 = stablehlo.negate %105 : tensor<?x?xf32>
      %cst_94 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %450 = shape.shape_of %105 : tensor<?x?xf32> -> tensor<2xindex>
      %451 = stablehlo.dynamic_broadcast_in_dim %cst_94, %450, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
      %452 = stablehlo.subtract %105, %451 : tensor<?x?xf32>
      %453 = stablehlo.select %448, %449, %452 : tensor<?x?xi1>, tensor<?x?xf32>
      %cst_95 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %454 = shape.shape_of %105 : tensor<?x?xf32> -> tensor<2xindex>
      %455 = stablehlo.dynamic_broadcast_in_dim %cst_95, %454, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
      %cst_96 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %456 = shape.shape_of %105 : tensor<?x?xf32> -> tensor<2xindex>
      %457 = stablehlo.dynamic_broadcast_in_dim %cst_96, %456, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
      %cst_97 = stablehlo.constant dense<676.520386> : tensor<f32>
      %458 = shape.shape_of %105 : tensor<?x?xf32> -> tensor<2xindex>
      %459 = stablehlo.dynamic_broadcast_in_dim %cst_97, %458, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
      %cst_98 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %460 = shape.shape_of %105 : tensor<?x?xf32> -> tensor<2xindex>
      %461 = stablehlo.dynamic_broadcast_in_dim %cst_98, %460, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
      %462 = stablehlo.add %453, %461 : tensor<?x?xf32>
      %463 = stablehlo.multiply %462, %462 : tensor<?x?xf32>
      %464 = stablehlo.divide %459, %463 : tensor<?x?xf32>
      %465 = stablehlo.subtract %455, %464 : tensor<?x?xf32>
      %466 = stablehlo.divide %459, %462 : tensor<?x?xf32>
      %467 = stablehlo.add %457, %466 : tensor<?x?xf32>
      %cst_99 = stablehlo.constant dense<-1259.13916> : tensor<f32>
      %468 = shape.shape_of %105 : tensor<?x?xf32> -> tensor<2xindex>
      %469 = stablehlo.dynamic_broadcast_in_dim %cst_99, %468, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
      %cst_100 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
      %470 = shape.shape_of %105 : tensor<?x?xf32> -> tensor<2xindex>
      %471 = stablehlo.dynamic_broadcast_in_dim %cst_100, %470, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
      %472 = stablehlo.add %453, %471 : tensor<?x?xf32>
      %473 = stablehlo.multiply %472, %472 : tensor<?x?xf32>
      %474 = stablehlo.divide %469, %473 : tensor<?x?xf32>
      %475 = stablehlo.subtract %465, %474 : tensor<?x?xf32>
      %476 = stablehlo.divide %469, %472 : tensor<?x?xf32>
      %477 = stablehlo.add %467, %476 : tensor<?x?xf32>
      %cst_101 = stablehlo.constant dense<771.323425> : tensor<f32>
      %478 = shape.shape_of %105 : tensor<?x?xf32> -> tensor<2xindex>
      %479 = stablehlo.dynamic_broadcast_in_dim %cst_101, %478, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
      %cst_102 = stablehlo.constant dense<3.000000e+00> : tensor<f32>
      %480 = shape.shape_of %105 : tensor<?x?xf32> -> tensor<2xindex>
      %481 = stablehlo.dynamic_broadcast_in_dim %cst_102, %480, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
      %482 = stablehlo.add %453, %481 : tensor<?x?xf32>
      %483 = stablehlo.multiply %482, %482 : tensor<?x?xf32>
      %484 = stablehlo.divide %479, %483 : tensor<?x?xf32>
      %485 = stablehlo.subtract %475, %484 : tensor<?x?xf32>
      %486 = stablehlo.divide %479, %482 : tensor<?x?xf32>
      %487 = stablehlo.add %477, %486 : tensor<?x?xf32>
      %cst_103 = stablehlo.constant dense<-176.615036> : tensor<f32>
      %488 = shape.shape_of %105 : tensor<?x?xf32> -> tensor<2xindex>
      %489 = stablehlo.dynamic_broadcast_in_dim %cst_103, %488, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
      %cst_104 = stablehlo.constant dense<4.000000e+00> : tensor<f32>
      %490 = shape.shape_of %105 : tensor<?x?xf32> -> tensor<2xindex>
      %491 = stablehlo.dynamic_broadcast_in_dim %cst_104, %490, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
      %492 = stablehlo.add %453, %491 : tensor<?x?xf32>
      %493 = stablehlo.multiply %492, %492 : tensor<?x?xf32>
      %494 = stablehlo.divide %489, %493 : tensor<?x?xf32>
      %495 = stablehlo.subtract %485, %494 : tensor<?x?xf32>
      %496 = stablehlo.divide %489, %492 : tensor<?x?xf32>
      %497 = stablehlo.add %487, %496 : tensor<?x?xf32>
      %cst_105 = stablehlo.constant dense<12.5073433> : tensor<f32>
      %498 = shape.shape_of %105 : tensor<?x?xf32> -> tensor<2xindex>
      %499 = stablehlo.dynamic_broadcast_in_dim %cst_105, %498, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
      %cst_106 = stablehlo.constant dense<5.000000e+00> : tensor<f32>
      %500 = shape.shape_of %105 : tensor<?x?xf32> -> tensor<2xindex>
      %501 = stablehlo.dynamic_broadcast_in_dim %cst_106, %500, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
      %502 = stablehlo.add %453, %501 : tensor<?x?xf32>
      %503 = stablehlo.multiply %502, %502 : tensor<?x?xf32>
      %504 = stablehlo.divide %499, %503 : tensor<?x?xf32>
      %505 = stablehlo.subtract %495, %504 : tensor<?x?xf32>
      %506 = stablehlo.divide %499, %502 : tensor<?x?xf32>
      %507 = stablehlo.add %497, %506 : tensor<?x?xf32>
      %cst_107 = stablehlo.constant dense<-0.138571098> : tensor<f32>
      %508 = shape.shape_of %105 : tensor<?x?xf32> -> tensor<2xindex>
      %509 = stablehlo.dynamic_broadcast_in_dim %cst_107, %508, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
      %cst_108 = stablehlo.constant dense<6.000000e+00> : tensor<f32>
      %510 = shape.shape_of %105 : tensor<?x?xf32> -> tensor<2xindex>
      %511 = stablehlo.dynamic_broadcast_in_dim %cst_108, %510, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
      %512 = stablehlo.add %453, %511 : tensor<?x?xf32>
      %513 = stablehlo.multiply %512, %512 : tensor<?x?xf32>
      %514 = stablehlo.divide %509, %513 : tensor<?x?xf32>
      %515 = stablehlo.subtract %505, %514 : tensor<?x?xf32>
      %516 = stablehlo.divide %509, %512 : tensor<?x?xf32>
      %517 = stablehlo.add %507, %516 : tensor<?x?xf32>
      %cst_109 = stablehlo.constant dense<9.98436917E-6> : tensor<f32>
      %518 = shape.shape_of %105 : tensor<?x?xf32> -> tensor<2xindex>
      %519 = stablehlo.dynamic_broadcast_in_dim %cst_109, %518, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
      %cst_110 = stablehlo.constant dense<7.000000e+00> : tensor<f32>
      %520 = shape.shape_of %105 : tensor<?x?xf32> -> tensor<2xindex>
      %521 = stablehlo.dynamic_broadcast_in_dim %cst_110, %520, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
      %522 = stablehlo.add %453, %521 : tensor<?x?xf32>
      %523 = stablehlo.multiply %522, %522 : tensor<?x?xf32>
      %524 = stablehlo.divide %519, %523 : tensor<?x?xf32>
      %525 = stablehlo.subtract %515, %524 : tensor<?x?xf32>
      %526 = stablehlo.divide %519, %522 : tensor<?x?xf32>
      %527 = stablehlo.add %517, %526 : tensor<?x?xf32>
      %cst_111 = stablehlo.constant dense<1.50563267E-7> : tensor<f32>
      %528 = shape.shape_of %105 : tensor<?x?xf32> -> tensor<2xindex>
      %529 = stablehlo.dynamic_broadcast_in_dim %cst_111, %528, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
      %cst_112 = stablehlo.constant dense<8.000000e+00> : tensor<f32>
      %530 = shape.shape_of %105 : tensor<?x?xf32> -> tensor<2xindex>
      %531 = stablehlo.dynamic_broadcast_in_dim %cst_112, %530, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
      %532 = stablehlo.add %453, %531 : tensor<?x?xf32>
      %533 = stablehlo.multiply %532, %532 : tensor<?x?xf32>
      %534 = stablehlo.divide %529, %533 : tensor<?x?xf32>
      %535 = stablehlo.subtract %525, %534 : tensor<?x?xf32>
      %536 = stablehlo.divide %529, %532 : tensor<?x?xf32>
      %537 = stablehlo.add %527, %536 : tensor<?x?xf32>
      %cst_113 = stablehlo.constant dense<7.500000e+00> : tensor<f32>
      %538 = shape.shape_of %105 : tensor<?x?xf32> -> tensor<2xindex>
      %539 = stablehlo.dynamic_broadcast_in_dim %cst_113, %538, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
      %540 = stablehlo.add %539, %453 : tensor<?x?xf32>
      %cst_114 = stablehlo.constant dense<2.01490307> : tensor<f32>
      %541 = shape.shape_of %105 : tensor<?x?xf32> -> tensor<2xindex>
      %542 = stablehlo.dynamic_broadcast_in_dim %cst_114, %541, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
      %543 = stablehlo.divide %453, %539 : tensor<?x?xf32>
      %544 = stablehlo.log_plus_one %543 : tensor<?x?xf32>
      %545 = stablehlo.add %542, %544 : tensor<?x?xf32>
      %546 = stablehlo.divide %535, %537 : tensor<?x?xf32>
      %cst_115 = stablehlo.constant dense<7.000000e+00> : tensor<f32>
      %547 = shape.shape_of %105 : tensor<?x?xf32> -> tensor<2xindex>
      %548 = stablehlo.dynamic_broadcast_in_dim %cst_115, %547, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
      %549 = stablehlo.divide %548, %540 : tensor<?x?xf32>
      %550 = stablehlo.add %545, %546 : tensor<?x?xf32>
      %551 = stablehlo.subtract %550, %549 : tensor<?x?xf32>
      %cst_116 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
      %552 = shape.shape_of %105 : tensor<?x?xf32> -> tensor<2xindex>
      %553 = stablehlo.dynamic_broadcast_in_dim %cst_116, %552, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
      %554 = stablehlo.add %105, %553 : tensor<?x?xf32>
      %555 = stablehlo.floor %554 : tensor<?x?xf32>
      %556 = stablehlo.abs %555 : tensor<?x?xf32>
      %557 = stablehlo.add %105, %556 : tensor<?x?xf32>
      %cst_117 = stablehlo.constant dense<3.14159274> : tensor<f32>
      %558 = shape.shape_of %105 : tensor<?x?xf32> -> tensor<2xindex>
      %559 = stablehlo.dynamic_broadcast_in_dim %cst_117, %558, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
      %560 = stablehlo.multiply %559, %557 : tensor<?x?xf32>
      %561 = stablehlo.cosine %560 : tensor<?x?xf32>
      %562 = stablehlo.sine %560 : tensor<?x?xf32>
      %563 = stablehlo.multiply %559, %561 : tensor<?x?xf32>
      %564 = stablehlo.divide %563, %562 : tensor<?x?xf32>
      %565 = stablehlo.subtract %551, %564 : tensor<?x?xf32>
      %566 = stablehlo.select %448, %565, %551 : tensor<?x?xi1>, tensor<?x?xf32>
      %567 = stablehlo.compare LE, %105, %455 : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xi1>
      %568 = stablehlo.floor %105 : tensor<?x?xf32>
      %569 = stablehlo.compare EQ, %105, %568 : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xi1>
      %570 = stablehlo.and %567, %569 : tensor<?x?xi1>
      %cst_118 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
      %571 = shape.shape_of %105 : tensor<?x?xf32> -> tensor<2xindex>
      %572 = stablehlo.dynamic_broadcast_in_dim %cst_118, %571, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
      %573 = stablehlo.select %570, %572, %566 : tensor<?x?xi1>, tensor<?x?xf32>
      %574 = stablehlo.select %445, %573, %442 : tensor<?x?xi1>, tensor<?x?xf32>
      %575 = stablehlo.floor %104 : tensor<?x?xf32>
      %576 = stablehlo.compare NE, %104, %575 : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xi1>
      %577 = stablehlo.compare LT, %104, %444 : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xi1>
      %578 = stablehlo.or %576, %577 : tensor<?x?xi1>
      %cst_119 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
      %579 = shape.shape_of %105 : tensor<?x?xf32> -> tensor<2xindex>
      %580 = stablehlo.dynamic_broadcast_in_dim %cst_119, %579, dims = [] : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
      %581 = stablehlo.select %578, %580, %574 : tensor<?x?xi1>, tensor<?x?xf32>
      shape.assuming_yield %581 : tensor<?x?xf32>
    }
    %16 = stablehlo.negate %arg1 : tensor<?xf32>
    %17 = stablehlo.multiply %arg1, %16 : tensor<?xf32>
    %18 = stablehlo.log_plus_one %17 : tensor<?xf32>
    %19 = stablehlo.negate %18 : tensor<?xf32>
    %cst = stablehlo.constant dense<5.000000e+00> : tensor<f32>
    %20 = shape.shape_of %arg1 : tensor<?xf32> -> tensor<1xindex>
    %21 = stablehlo.dynamic_broadcast_in_dim %cst, %20, dims = [] : (tensor<f32>, tensor<1xindex>) -> tensor<?xf32>
    %22 = stablehlo.compare LT, %19, %21 : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xi1>
    %cst_0 = stablehlo.constant dense<2.500000e+00> : tensor<f32>
    %23 = shape.shape_of %arg1 : tensor<?xf32> -> tensor<1xindex>
    %24 = stablehlo.dynamic_broadcast_in_dim %cst_0, %23, dims = [] : (tensor<f32>, tensor<1xindex>) -> tensor<?xf32>
    %25 = stablehlo.subtract %19, %24 : tensor<?xf32>
    %26 = stablehlo.sqrt %19 : tensor<?xf32>
    %cst_1 = stablehlo.constant dense<3.000000e+00> : tensor<f32>
    %27 = shape.shape_of %arg1 : tensor<?xf32> -> tensor<1xindex>
    %28 = stablehlo.dynamic_broadcast_in_dim %cst_1, %27, dims = [] : (tensor<f32>, tensor<1xindex>) -> tensor<?xf32>
    %29 = stablehlo.subtract %26, %28 : tensor<?xf32>
    %30 = stablehlo.select %22, %25, %29 : tensor<?xi1>, tensor<?xf32>
    %cst_2 = stablehlo.constant dense<2.81022636E-8> : tensor<f32>
    %31 = shape.shape_of %arg1 : tensor<?xf32> -> tensor<1xindex>
    %32 = stablehlo.dynamic_broadcast_in_dim %cst_2, %31, dims = [] : (tensor<f32>, tensor<1xindex>) -> tensor<?xf32>
    %cst_3 = stablehlo.constant dense<-2.00214257E-4> : tensor<f32>
    %33 = shape.shape_of %arg1 : tensor<?xf32> -> tensor<1xindex>
    %34 = stablehlo.dynamic_broadcast_in_dim %cst_3, %33, dims = [] : (tensor<f32>, tensor<1xindex>) -> tensor<?xf32>
    %35 = stablehlo.select %22, %32, %34 : tensor<?xi1>, tensor<?xf32>
    %cst_4 = stablehlo.constant dense<3.43273939E-7> : tensor<f32>
    %36 = shape.shape_of %arg1 : tensor<?xf32> -> tensor<1xindex>
    %37 = stablehlo.dynamic_broadcast_in_dim %cst_4, %36, dims = [] : (tensor<f32>, tensor<1xindex>) -> tensor<?xf32>
    %cst_5 = stablehlo.constant dense<1.00950558E-4> : tensor<f32>
    %38 = shape.shape_of %arg1 : tensor<?xf32> -> tensor<1xindex>
    %39 = stablehlo.dynamic_broadcast_in_dim %cst_5, %38, dims = [] : (tensor<f32>, tensor<1xindex>) -> tensor<?xf32>
    %40 = stablehlo.select %22, %37, %39 : tensor<?xi1>, tensor<?xf32>
    %41 = stablehlo.multiply %35, %30 : tensor<?xf32>
    %42 = stablehlo.add %40, %41 : tensor<?xf32>
    %cst_6 = stablehlo.constant dense<-3.5233877E-6> : tensor<f32>
    %43 = shape.shape_of %arg1 : tensor<?xf32> -> tensor<1xindex>
    %44 = stablehlo.dynamic_broadcast_in_dim %cst_6, %43, dims = [] : (tensor<f32>, tensor<1xindex>) -> tensor<?xf32>
    %cst_7 = stablehlo.constant dense<0.00134934322> : tensor<f32>
    %45 = shape.shape_of %arg1 : tensor<?xf32> -> tensor<1xindex>
    %46 = stablehlo.dynamic_broadcast_in_dim %cst_7, %45, dims = [] : (tensor<f32>, tensor<1xindex>) -> tensor<?xf32>
    %47 = stablehlo.select %22, %44, %46 : tensor<?xi1>, tensor<?xf32>
    %48 = stablehlo.multiply %42, %30 : tensor<?xf32>
    %49 = stablehlo.add %47, %48 : tensor<?xf32>
    %cst_8 = stablehlo.constant dense<-4.39150654E-6> : tensor<f32>
    %50 = shape.shape_of %arg1 : tensor<?xf32> -> tensor<1xindex>
    %51 = stablehlo.dynamic_broadcast_in_dim %cst_8, %50, dims = [] : (tensor<f32>, tensor<1xindex>) -> tensor<?xf32>
    %cst_9 = stablehlo.constant dense<-0.00367342844> : tensor<f32>
    %52 = shape.shape_of %arg1 : tensor<?xf32> -> tensor<1xindex>
    %53 = stablehlo.dynamic_broadcast_in_dim %cst_9, %52, dims = [] : (tensor<f32>, tensor<1xindex>) -> tensor<?xf32>
    %54 = stablehlo.select %22, %51, %53 : tensor<?xi1>, tensor<?xf32>
    %55 = stablehlo.multiply %49, %30 : tensor<?xf32>
    %56 = stablehlo.add %54, %55 : tensor<?xf32>
    %cst_10 = stablehlo.constant dense<2.1858087E-4> : tensor<f32>
    %57 = shape.shape_of %arg1 : tensor<?xf32> -> tensor<1xindex>
    %58 = stablehlo.dynamic_broadcast_in_dim %cst_10, %57, dims = [] : (tensor<f32>, tensor<1xindex>) -> tensor<?xf32>
    %cst_11 = stablehlo.constant dense<0.00573950773> : tensor<f32>
    %59 = shape.shape_of %arg1 : tensor<?xf32> -> tensor<1xindex>
    %60 = stablehlo.dynamic_broadcast_in_dim %cst_11, %59, dims = [] : (tensor<f32>, tensor<1xindex>) -> tensor<?xf32>
    %61 = stablehlo.select %22, %58, %60 : tensor<?xi1>, tensor<?xf32>
    %62 = stablehlo.multiply %56, %30 : tensor<?xf32>
    %63 = stablehlo.add %61, %62 : tensor<?xf32>
    %cst_12 = stablehlo.constant dense<-0.00125372503> : tensor<f32>
    %64 = shape.shape_of %arg1 : tensor<?xf32> -> tensor<1xindex>
    %65 = stablehlo.dynamic_broadcast_in_dim %cst_12, %64, dims = [] : (tensor<f32>, tensor<1xindex>) -> tensor<?xf32>
    %cst_13 = stablehlo.constant dense<-0.0076224613> : tensor<f32>
    %66 = shape.shape_of %arg1 : tensor<?xf32> -> tensor<1xindex>
    %67 = stablehlo.dynamic_broadcast_in_dim %cst_13, %66, dims = [] : (tensor<f32>, tensor<1xindex>) -> tensor<?xf32>
    %68 = stablehlo.select %22, %65, %67 : tensor<?xi1>, tensor<?xf32>
    %69 = stablehlo.multiply %63, %30 : tensor<?xf32>
    %70 = stablehlo.add %68, %69 : tensor<?xf32>
    %cst_14 = stablehlo.constant dense<-0.00417768164> : tensor<f32>
    %71 = shape.shape_of %arg1 : tensor<?xf32> -> tensor<1xindex>
    %72 = stablehlo.dynamic_broadcast_in_dim %cst_14, %71, dims = [] : (tensor<f32>, tensor<1xindex>) -> tensor<?xf32>
    %cst_15 = stablehlo.constant dense<0.00943887047> : tensor<f32>
    %73 = shape.shape_of %arg1 : tensor<?xf32> -> tensor<1xindex>
    %74 = stablehlo.dynamic_broadcast_in_dim %cst_15, %73, dims = [] : (tensor<f32>, tensor<1xindex>) -> tensor<?xf32>
    %75 = stablehlo.select %22, %72, %74 : tensor<?xi1>, tensor<?xf32>
    %76 = stablehlo.multiply %70, %30 : tensor<?xf32>
    %77 = stablehlo.add %75, %76 : tensor<?xf32>
    %cst_16 = stablehlo.constant dense<0.246640727> : tensor<f32>
    %78 = shape.shape_of %arg1 : tensor<?xf32> -> tensor<1xindex>
    %79 = stablehlo.dynamic_broadcast_in_dim %cst_16, %78, dims = [] : (tensor<f32>, tensor<1xindex>) -> tensor<?xf32>
    %cst_17 = stablehlo.constant dense<1.00167406> : tensor<f32>
    %80 = shape.shape_of %arg1 : tensor<?xf32> -> tensor<1xindex>
    %81 = stablehlo.dynamic_broadcast_in_dim %cst_17, %80, dims = [] : (tensor<f32>, tensor<1xindex>) -> tensor<?xf32>
    %82 = stablehlo.select %22, %79, %81 : tensor<?xi1>, tensor<?xf32>
    %83 = stablehlo.multiply %77, %30 : tensor<?xf32>
    %84 = stablehlo.add %82, %83 : tensor<?xf32>
    %cst_18 = stablehlo.constant dense<1.50140941> : tensor<f32>
    %85 = shape.shape_of %arg1 : tensor<?xf32> -> tensor<1xindex>
    %86 = stablehlo.dynamic_broadcast_in_dim %cst_18, %85, dims = [] : (tensor<f32>, tensor<1xindex>) -> tensor<?xf32>
    %cst_19 = stablehlo.constant dense<2.83297682> : tensor<f32>
    %87 = shape.shape_of %arg1 : tensor<?xf32> -> tensor<1xindex>
    %88 = stablehlo.dynamic_broadcast_in_dim %cst_19, %87, dims = [] : (tensor<f32>, tensor<1xindex>) -> tensor<?xf32>
    %89 = stablehlo.select %22, %86, %88 : tensor<?xi1>, tensor<?xf32>
    %90 = stablehlo.multiply %84, %30 : tensor<?xf32>
    %91 = stablehlo.add %89, %90 : tensor<?xf32>
    %92 = stablehlo.multiply %91, %arg1 : tensor<?xf32>
    %93 = stablehlo.abs %arg1 : tensor<?xf32>
    %cst_20 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %94 = shape.shape_of %arg1 : tensor<?xf32> -> tensor<1xindex>
    %95 = stablehlo.dynamic_broadcast_in_dim %cst_20, %94, dims = [] : (tensor<f32>, tensor<1xindex>) -> tensor<?xf32>
    %96 = stablehlo.compare EQ, %93, %95 : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xi1>
    %cst_21 = stablehlo.constant dense<0x7F800000> : tensor<f32>
    %97 = shape.shape_of %arg1 : tensor<?xf32> -> tensor<1xindex>
    %98 = stablehlo.dynamic_broadcast_in_dim %cst_21, %97, dims = [] : (tensor<f32>, tensor<1xindex>) -> tensor<?xf32>
    %99 = stablehlo.multiply %arg1, %98 : tensor<?xf32>
    %100 = stablehlo.select %96, %99, %92 : tensor<?xi1>, tensor<?xf32>
    return %3, %7, %11, %15, %100 : tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xi32>, tensor<?x?xf32>, tensor<?xf32>
  }
}
